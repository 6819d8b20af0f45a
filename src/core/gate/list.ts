// memory_gate decisions, newest first, paged by keyset so any page of a million rows costs the same.
import { GATE_DECISIONS, type AuditStatus, type ConversationContextItem, type GateDecision } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { nowOf, type ServiceContext } from '../context';
import { stmt } from '../db/statements';
import { clampLimit, decodeCursor, pageOf } from '../db/paging';
import { parseTimeRange } from '../text/time';
import { parseTextQuery } from '../search/fts';

export interface DecisionFilters {
  sessionId?: string;
  decision?: GateDecision | GateDecision[];
  turnId?: string;
  /** ms since epoch, ISO 8601, or a duration back from now ("7d"). Inclusive. */
  since?: number | string;
  /** Exclusive upper bound, same forms as since. */
  until?: number | string;
  /** Free text over reasons, candidate facts and the turn's messages. */
  query?: string;
}

export interface ListDecisionsInput extends DecisionFilters {
  limit?: number;
  cursor?: string;
  withContext?: boolean;
}

export interface DecisionListItem {
  id: string;
  turnId: string;
  sessionId: string;
  turnNumber: number;
  decision: GateDecision;
  reason: string;
  candidateFact: string | null;
  llmModel: string;
  latencyMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  source: string;
  createdAt: number;
  userMessage: string;
  agentReply: string;
  /** The status of the latest write_guardian outcome of this decision, if any. */
  writeStatus: AuditStatus | null;
  context?: ConversationContextItem[];
}

export interface DecisionPage {
  items: DecisionListItem[];
  nextCursor: string | null;
  /** Set when a free-text filter had no term of 3+ characters: only the newest this-many decisions were searched. */
  scanned?: number;
}

interface DecisionRow {
  seq: number;
  id: string;
  turn_id: string;
  session_id: string;
  turn_number: number;
  decision: GateDecision;
  reason: string;
  candidate_fact: string | null;
  llm_model: string;
  llm_latency_ms: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  source: string;
  created_at: number;
  user_message_content: string;
  agent_message_content: string;
  write_status: AuditStatus | null;
}

export const DECISION_COLUMNS = `
  d.seq, d.id, d.turn_id, d.session_id, t.turn_number, d.decision, d.reason, d.candidate_fact, d.llm_model,
  d.llm_latency_ms, d.prompt_tokens, d.completion_tokens, d.source, d.created_at,
  t.user_message_content, t.agent_message_content,
  (SELECT a.status FROM write_guardian_audit a WHERE a.decision_id = d.id ORDER BY a.rowid DESC LIMIT 1) AS write_status`;

export function decisionFromRow(r: DecisionRow): DecisionListItem {
  return {
    id: r.id,
    turnId: r.turn_id,
    sessionId: r.session_id,
    turnNumber: r.turn_number,
    decision: r.decision,
    reason: r.reason,
    candidateFact: r.candidate_fact,
    llmModel: r.llm_model,
    latencyMs: r.llm_latency_ms,
    promptTokens: r.prompt_tokens,
    completionTokens: r.completion_tokens,
    source: r.source,
    createdAt: r.created_at,
    userMessage: r.user_message_content,
    agentReply: r.agent_message_content,
    writeStatus: r.write_status,
  };
}

/** WHERE clauses and parameters for the filters; every clause is a fixed fragment with named parameters. */
/** How many of the newest decisions a free-text filter without any 3+ character term looks at. */
export const SHORT_TEXT_SCAN_BOUND = 20_000;

export function decisionWhere(
  ctx: ServiceContext,
  f: DecisionFilters,
  options: { boundShortText?: boolean } = {},
): { clauses: string[]; params: Record<string, unknown>; needsTurn: boolean; scanned?: number } {
  const clauses: string[] = [];
  const params: Record<string, unknown> = {};
  let needsTurn = false;
  let scanned: number | undefined;
  if (f.sessionId !== undefined) {
    if (typeof f.sessionId !== 'string' || !f.sessionId) throw new AppError('Invalid', 'sessionId: expected a session key');
    clauses.push('d.session_id = @sessionId');
    params.sessionId = f.sessionId;
  }
  if (f.turnId !== undefined) {
    clauses.push('d.turn_id = @turnId');
    params.turnId = f.turnId;
  }
  if (f.decision !== undefined) {
    const list = Array.isArray(f.decision) ? f.decision : [f.decision];
    for (const d of list) {
      if (!(GATE_DECISIONS as readonly string[]).includes(d)) {
        throw new AppError('Invalid', `decision: "${d}" is not one of ${GATE_DECISIONS.join(', ')}`);
      }
    }
    if (list.length === 1) {
      clauses.push('d.decision = @decision');
      params.decision = list[0];
    } else if (list.length > 1) {
      clauses.push('d.decision IN (SELECT value FROM json_each(@decisions))');
      params.decisions = JSON.stringify(list);
    }
  }
  const { since, until } = parseTimeRange(f, nowOf(ctx));
  if (since !== undefined) {
    clauses.push('d.created_at >= @since');
    params.since = since;
  }
  if (until !== undefined) {
    clauses.push('d.created_at < @until');
    params.until = until;
  }
  if (f.query !== undefined && f.query.trim()) {
    const q = parseTextQuery(f.query);
    if (q.match) {
      clauses.push(`(d.seq IN (SELECT rowid FROM decisions_fts WHERE decisions_fts MATCH @match)
        OR d.turn_id IN (SELECT tt.id FROM conversation_turns tt WHERE tt.seq IN (SELECT rowid FROM turns_fts WHERE turns_fts MATCH @match)))`);
      params.match = q.match;
    }
    needsTurn = q.shortTerms.length > 0;
    if (!q.match && options.boundShortText) {
      // No trigram index can serve 1-2 characters: bound the scan to the newest decisions, as search does.
      const floor = stmt(ctx.db, 'SELECT created_at FROM memory_gate_decisions ORDER BY created_at DESC LIMIT 1 OFFSET ?')
        .pluck()
        .get(SHORT_TEXT_SCAN_BOUND - 1) as number | undefined;
      if (floor !== undefined) {
        clauses.push('d.created_at >= @scanFloor');
        params.scanFloor = floor;
      }
      scanned = SHORT_TEXT_SCAN_BOUND;
    }
    q.shortTerms.forEach((term, i) => {
      clauses.push(`(instr(lower(d.reason), @short${i}) > 0 OR instr(lower(coalesce(d.candidate_fact, '')), @short${i}) > 0
        OR instr(lower(t.user_message_content), @short${i}) > 0 OR instr(lower(t.agent_message_content), @short${i}) > 0)`);
      params[`short${i}`] = term;
    });
  }
  return { clauses, params, needsTurn, scanned };
}

const CONTEXT_SQL = `SELECT id, turn_id AS turnId, role, message, timestamp, sequence_number AS sequenceNumber
  FROM conversation_contexts WHERE turn_id = ? ORDER BY sequence_number`;

export function contextOf(ctx: ServiceContext, turnId: string): ConversationContextItem[] {
  return stmt(ctx.db, CONTEXT_SQL).all(turnId) as ConversationContextItem[];
}

/** The SQL of one page, exposed so tests can check its query plan. */
export function listDecisionsSql(ctx: ServiceContext, input: ListDecisionsInput): { sql: string; params: Record<string, unknown>; limit: number; scanned?: number } {
  const limit = clampLimit(input.limit, 50);
  // Pages are interactive: a 1-2 character filter must not scan a million rows. Stats and exports stay complete.
  const { clauses, params, scanned } = decisionWhere(ctx, input, { boundShortText: true });
  const key = decodeCursor(input.cursor, ['number', 'number']);
  if (key) {
    // Row-value comparison lets SQLite seek the (…, created_at, rowid) index directly to the page start.
    clauses.push('(d.created_at, d.seq) < (@cursorAt, @cursorSeq)');
    params.cursorAt = key[0];
    params.cursorSeq = key[1];
  }
  const sql = `SELECT ${DECISION_COLUMNS}
    FROM memory_gate_decisions d JOIN conversation_turns t ON t.id = d.turn_id
    ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''}
    ORDER BY d.created_at DESC, d.seq DESC LIMIT @limitPlusOne`;
  params.limitPlusOne = limit + 1;
  return { sql, params, limit, scanned };
}

export function listDecisions(ctx: ServiceContext, input: ListDecisionsInput = {}): DecisionPage {
  const { sql, params, limit, scanned } = listDecisionsSql(ctx, input);
  const rows = stmt<DecisionRow>(ctx.db, sql).all(params);
  const page = pageOf(rows, limit, (r) => [r.created_at, r.seq], decisionFromRow);
  if (input.withContext) for (const item of page.items) item.context = contextOf(ctx, item.turnId);
  return { ...page, ...(scanned ? { scanned } : {}) };
}
