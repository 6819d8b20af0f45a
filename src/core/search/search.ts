// Full-text search over turns (user and agent text) and decisions (reasons, candidate facts).
// Three or more characters: FTS5 trigram index, newest first. Shorter: a LIKE-style scan over the
// newest rows only, so a one-character query on a million turns still answers at once.
import type { GateDecision } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { ServiceContext } from '../context';
import { stmt } from '../db/statements';
import { clampLimit } from '../db/paging';
import { parseTextQuery, snippet, type Snippet } from './fts';

export type SearchScope = 'all' | 'turns' | 'decisions';
export type SearchField = 'user' | 'agent' | 'reason' | 'fact';

export interface SearchInput {
  query: string;
  limit?: number;
  scope?: SearchScope;
  sessionId?: string;
}

export interface SearchHit {
  kind: 'turn' | 'decision';
  /** The turn id or the decision id. */
  id: string;
  turnId: string;
  sessionId: string;
  createdAt: number;
  decision?: GateDecision;
  /** One snippet per field that matched, with match offsets (never HTML). */
  snippets: Array<Snippet & { field: SearchField }>;
}

export interface SearchResult {
  query: string;
  mode: 'fts' | 'scan';
  hits: SearchHit[];
  /** Scan mode only: the newest `scanned` rows were looked at, older ones were not. */
  scanned?: number;
}

/** How many of the newest rows a short query looks at. */
export const SCAN_BOUND = 20_000;

interface TurnRow { seq: number; id: string; session_id: string; created_at: number; user_message_content: string; agent_message_content: string }
interface DecisionRow { seq: number; id: string; turn_id: string; session_id: string; created_at: number; decision: GateDecision; reason: string; candidate_fact: string | null }

function shortTermClause(columns: string[], count: number): string {
  return Array.from({ length: count }, (_, i) => `(${columns.map((c) => `instr(lower(${c}), @short${i}) > 0`).join(' OR ')})`).join(' AND ');
}

export function search(ctx: ServiceContext, input: SearchInput): SearchResult {
  if (!input || typeof input.query !== 'string' || !input.query.trim()) throw new AppError('Invalid', 'query: expected some text to search for');
  if (input.query.length > 500) throw new AppError('Invalid', 'query: at most 500 characters');
  const scope = input.scope ?? 'all';
  if (!['all', 'turns', 'decisions'].includes(scope)) throw new AppError('Invalid', `scope: expected all, turns or decisions, got ${scope}`);
  const limit = clampLimit(input.limit, 20, 500);
  const q = parseTextQuery(input.query);
  const params: Record<string, unknown> = { limit, scan: SCAN_BOUND, sessionId: input.sessionId ?? null };
  q.shortTerms.forEach((t, i) => (params[`short${i}`] = t));
  const sessionClause = input.sessionId ? 'AND x.session_id = @sessionId' : '';
  const turnShort = q.shortTerms.length ? `AND ${shortTermClause(['x.user_message_content', 'x.agent_message_content'], q.shortTerms.length)}` : '';
  const decisionShort = q.shortTerms.length ? `AND ${shortTermClause(['x.reason', "coalesce(x.candidate_fact, '')"], q.shortTerms.length)}` : '';

  let turns: TurnRow[] = [];
  let decisions: DecisionRow[] = [];
  if (q.match) {
    params.match = q.match;
    if (scope !== 'decisions') {
      turns = stmt(ctx.db, `SELECT x.seq, x.id, x.session_id, x.created_at, x.user_message_content, x.agent_message_content
        FROM turns_fts f JOIN conversation_turns x ON x.seq = f.rowid
        WHERE turns_fts MATCH @match ${sessionClause} ${turnShort} ORDER BY f.rowid DESC LIMIT @limit`).all(params) as TurnRow[];
    }
    if (scope !== 'turns') {
      decisions = stmt(ctx.db, `SELECT x.seq, x.id, x.turn_id, x.session_id, x.created_at, x.decision, x.reason, x.candidate_fact
        FROM decisions_fts f JOIN memory_gate_decisions x ON x.seq = f.rowid
        WHERE decisions_fts MATCH @match ${sessionClause} ${decisionShort} ORDER BY f.rowid DESC LIMIT @limit`).all(params) as DecisionRow[];
    }
  } else {
    if (scope !== 'decisions') {
      turns = stmt(ctx.db, `SELECT * FROM (SELECT x.seq, x.id, x.session_id, x.created_at, x.user_message_content, x.agent_message_content
        FROM conversation_turns x WHERE 1 ${sessionClause} ORDER BY x.created_at DESC LIMIT @scan) x
        WHERE 1 ${turnShort} LIMIT @limit`).all(params) as TurnRow[];
    }
    if (scope !== 'turns') {
      decisions = stmt(ctx.db, `SELECT * FROM (SELECT x.seq, x.id, x.turn_id, x.session_id, x.created_at, x.decision, x.reason, x.candidate_fact
        FROM memory_gate_decisions x WHERE 1 ${sessionClause} ORDER BY x.created_at DESC LIMIT @scan) x
        WHERE 1 ${decisionShort} LIMIT @limit`).all(params) as DecisionRow[];
    }
  }

  const hits: SearchHit[] = [];
  const fieldSnippets = (fields: Array<[SearchField, string | null]>) =>
    fields
      .filter(([, text]) => text !== null)
      .map(([field, text]) => ({ field, ...snippet(text as string, q.terms) }))
      .filter((s) => s.matches.length > 0);
  for (const t of turns) {
    const snippets = fieldSnippets([['user', t.user_message_content], ['agent', t.agent_message_content]]);
    hits.push({ kind: 'turn', id: t.id, turnId: t.id, sessionId: t.session_id, createdAt: t.created_at, snippets });
  }
  for (const d of decisions) {
    const snippets = fieldSnippets([['reason', d.reason], ['fact', d.candidate_fact]]);
    hits.push({ kind: 'decision', id: d.id, turnId: d.turn_id, sessionId: d.session_id, createdAt: d.created_at, decision: d.decision, snippets });
  }
  hits.sort((a, b) => b.createdAt - a.createdAt || (a.kind < b.kind ? -1 : 1));
  return { query: input.query, mode: q.match ? 'fts' : 'scan', hits: hits.slice(0, limit), ...(q.match ? {} : { scanned: SCAN_BOUND }) };
}
