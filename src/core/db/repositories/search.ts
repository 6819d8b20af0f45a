// Full-text candidates for search: turns and decisions matching an FTS5 trigram query (newest first), or,
// for terms too short for the index, an instr() scan over the newest `scan` rows only.
import type { GateDecision } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface TextSearchQuery {
  /** FTS5 MATCH expression; null = scan mode. */
  match: string | null;
  shortTerms: string[];
  sessionId?: string;
  limit: number;
  /** Scan mode: how many of the newest rows are looked at. */
  scan: number;
}

export interface TurnTextRow {
  seq: number;
  id: string;
  session_id: string;
  created_at: number;
  user_message_content: string;
  agent_message_content: string;
}
export interface DecisionTextRow {
  seq: number;
  id: string;
  turn_id: string;
  session_id: string;
  created_at: number;
  decision: GateDecision;
  reason: string;
  candidate_fact: string | null;
}

function shortTermClause(columns: string[], count: number): string {
  if (!count) return '';
  return `AND ${Array.from({ length: count }, (_, i) => `(${columns.map((c) => `instr(lower(${c}), @short${i}) > 0`).join(' OR ')})`).join(' AND ')}`;
}

function paramsOf(q: TextSearchQuery): Record<string, unknown> {
  const params: Record<string, unknown> = { limit: q.limit, scan: q.scan, sessionId: q.sessionId ?? null, match: q.match };
  q.shortTerms.forEach((t, i) => (params[`short${i}`] = t));
  return params;
}

const TURN_COLUMNS = 'x.seq, x.id, x.session_id, x.created_at, x.user_message_content, x.agent_message_content';
const DECISION_COLUMNS = 'x.seq, x.id, x.turn_id, x.session_id, x.created_at, x.decision, x.reason, x.candidate_fact';

export function searchTurns(db: DB, q: TextSearchQuery): TurnTextRow[] {
  const session = q.sessionId ? 'AND x.session_id = @sessionId' : '';
  const short = shortTermClause(['x.user_message_content', 'x.agent_message_content'], q.shortTerms.length);
  const sql = q.match
    ? `SELECT ${TURN_COLUMNS} FROM turns_fts f JOIN conversation_turns x ON x.seq = f.rowid
        WHERE turns_fts MATCH @match ${session} ${short} ORDER BY f.rowid DESC LIMIT @limit`
    : `SELECT * FROM (SELECT ${TURN_COLUMNS} FROM conversation_turns x WHERE 1 ${session} ORDER BY x.created_at DESC LIMIT @scan) x
        WHERE 1 ${short} LIMIT @limit`;
  return stmt<TurnTextRow>(db, sql).all(paramsOf(q));
}

export function searchDecisions(db: DB, q: TextSearchQuery): DecisionTextRow[] {
  const session = q.sessionId ? 'AND x.session_id = @sessionId' : '';
  const short = shortTermClause(['x.reason', "coalesce(x.candidate_fact, '')"], q.shortTerms.length);
  const sql = q.match
    ? `SELECT ${DECISION_COLUMNS} FROM decisions_fts f JOIN memory_gate_decisions x ON x.seq = f.rowid
        WHERE decisions_fts MATCH @match ${session} ${short} ORDER BY f.rowid DESC LIMIT @limit`
    : `SELECT * FROM (SELECT ${DECISION_COLUMNS} FROM memory_gate_decisions x WHERE 1 ${session} ORDER BY x.created_at DESC LIMIT @scan) x
        WHERE 1 ${short} LIMIT @limit`;
  return stmt<DecisionTextRow>(db, sql).all(paramsOf(q));
}
