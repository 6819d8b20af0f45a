// memory_gate decisions: filtered lists (keyset-paged on (created_at, seq)), one decision, a turn's decisions,
// streaming for exports and grouped counts for stats. Filters arrive parsed; every clause is a fixed fragment
// with named parameters, so the statement cache holds a small, finite set of texts.
import type { GateDecisionRow } from '../../../shared/contract/records';
import type { AuditStatus, GateDecision } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface DecisionQuery {
  sessionId?: string;
  turnId?: string;
  decisions?: GateDecision[];
  since?: number;
  until?: number;
  /** FTS5 MATCH expression over reasons, facts and the turn's messages. */
  match?: string | null;
  /** Terms too short for the trigram index: checked with instr() on the same texts. */
  shortTerms?: string[];
  /** Only decisions at or after this time (bounds a scan no index can serve). */
  scanFloor?: number;
}

export interface DecisionDbRow {
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

const DECISION_COLUMNS = `
  d.seq, d.id, d.turn_id, d.session_id, t.turn_number, d.decision, d.reason, d.candidate_fact, d.llm_model,
  d.llm_latency_ms, d.prompt_tokens, d.completion_tokens, d.source, d.created_at,
  t.user_message_content, t.agent_message_content,
  (SELECT a.status FROM write_guardian_audit a WHERE a.decision_id = d.id ORDER BY a.rowid DESC LIMIT 1) AS write_status`;

const FROM_DECISIONS = 'FROM memory_gate_decisions d JOIN conversation_turns t ON t.id = d.turn_id';

export function decisionFromRow(r: DecisionDbRow): GateDecisionRow {
  return {
    id: r.id,
    turnId: r.turn_id,
    sessionId: r.session_id,
    turnNumber: r.turn_number,
    decision: r.decision,
    reason: r.reason,
    candidateFact: r.candidate_fact,
    model: r.llm_model,
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

/** WHERE clauses and parameters for a query; needsTurn says the turn's messages are read (join conversation_turns t). */
export function decisionWhere(q: DecisionQuery): { clauses: string[]; params: Record<string, unknown>; needsTurn: boolean } {
  const clauses: string[] = [];
  const params: Record<string, unknown> = {};
  const add = (clause: string, values: Record<string, unknown>) => {
    clauses.push(clause);
    Object.assign(params, values);
  };
  if (q.sessionId !== undefined) add('d.session_id = @sessionId', { sessionId: q.sessionId });
  if (q.turnId !== undefined) add('d.turn_id = @turnId', { turnId: q.turnId });
  if (q.decisions?.length === 1) add('d.decision = @decision', { decision: q.decisions[0] });
  else if (q.decisions && q.decisions.length > 1)
    add('d.decision IN (SELECT value FROM json_each(@decisions))', { decisions: JSON.stringify(q.decisions) });
  if (q.since !== undefined) add('d.created_at >= @since', { since: q.since });
  if (q.until !== undefined) add('d.created_at < @until', { until: q.until });
  if (q.match) {
    add(
      `(d.seq IN (SELECT rowid FROM decisions_fts WHERE decisions_fts MATCH @match)
        OR d.turn_id IN (SELECT tt.id FROM conversation_turns tt WHERE tt.seq IN (SELECT rowid FROM turns_fts WHERE turns_fts MATCH @match)))`,
      { match: q.match },
    );
  }
  if (q.scanFloor !== undefined) add('d.created_at >= @scanFloor', { scanFloor: q.scanFloor });
  const shortTerms = q.shortTerms ?? [];
  shortTerms.forEach((term, i) => {
    add(
      `(instr(lower(d.reason), @short${i}) > 0 OR instr(lower(coalesce(d.candidate_fact, '')), @short${i}) > 0
        OR instr(lower(t.user_message_content), @short${i}) > 0 OR instr(lower(t.agent_message_content), @short${i}) > 0)`,
      { [`short${i}`]: term },
    );
  });
  return { clauses, params, needsTurn: shortTerms.length > 0 };
}

/** created_at of the `offset`-th newest decision (0 = newest), or undefined when there are fewer. */
export function decisionTimeAtRank(db: DB, offset: number): number | undefined {
  return stmt(db, 'SELECT created_at FROM memory_gate_decisions ORDER BY created_at DESC LIMIT 1 OFFSET ?').pluck().get(offset) as
    number | undefined;
}

/** The SQL of one page, newest first, exposed so tests can check its query plan. */
export function listDecisionsSql(q: DecisionQuery & { after?: [number, number]; limitPlusOne: number }): {
  sql: string;
  params: Record<string, unknown>;
} {
  const { clauses, params } = decisionWhere(q);
  if (q.after) {
    // Row-value comparison lets SQLite seek the (…, created_at, rowid) index directly to the page start.
    clauses.push('(d.created_at, d.seq) < (@cursorAt, @cursorSeq)');
    params.cursorAt = q.after[0];
    params.cursorSeq = q.after[1];
  }
  params.limitPlusOne = q.limitPlusOne;
  const sql = `SELECT ${DECISION_COLUMNS} ${FROM_DECISIONS}
    ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''}
    ORDER BY d.created_at DESC, d.seq DESC LIMIT @limitPlusOne`;
  return { sql, params };
}

/** Stored rows (map with decisionFromRow): the page cuts them first, so only the rows it keeps are mapped. */
export function listDecisionsPage(db: DB, q: DecisionQuery & { after?: [number, number]; limitPlusOne: number }): DecisionDbRow[] {
  const { sql, params } = listDecisionsSql(q);
  return stmt<DecisionDbRow>(db, sql).all(params);
}

/** Every matching decision oldest first, one row at a time; decisions of excluded sessions never leave. */
export function* iterateDecisionsForExport(db: DB, q: DecisionQuery): Generator<GateDecisionRow> {
  const { clauses, params } = decisionWhere(q);
  clauses.push('d.session_id NOT IN (SELECT session_id FROM excluded_sessions)');
  // iterate() holds the statement busy, so an export gets its own rather than the shared cached one.
  const s = db.prepare(`SELECT ${DECISION_COLUMNS} ${FROM_DECISIONS} WHERE ${clauses.join(' AND ')} ORDER BY d.created_at, d.seq`);
  for (const row of s.iterate(params) as IterableIterator<DecisionDbRow>) yield decisionFromRow(row);
}

export function findDecisionById(db: DB, id: string): (GateDecisionRow & { rawResponse: string | null }) | undefined {
  const r = stmt<DecisionDbRow & { raw_response: string | null }>(
    db,
    `SELECT ${DECISION_COLUMNS}, d.raw_response ${FROM_DECISIONS} WHERE d.id = ?`,
  ).get(id);
  return r && { ...decisionFromRow(r), rawResponse: r.raw_response };
}

export function decisionExists(db: DB, id: string): boolean {
  return stmt(db, 'SELECT 1 FROM memory_gate_decisions WHERE id = ?').get(id) !== undefined;
}

/** Up to `limit` decision ids starting with `prefix` (upper-case ULID text), in id order. */
export function findDecisionIdsByPrefix(db: DB, prefix: string, limit: number): string[] {
  return stmt(db, 'SELECT id FROM memory_gate_decisions WHERE id >= ? AND id < ? ORDER BY id LIMIT ?')
    .pluck()
    .all(prefix, `${prefix}\uffff`, limit) as string[];
}

/** The decisions of several turns, as a timeline shows them (no conversation text). */
export function listDecisionsOfTurns(db: DB, turnIds: string[]): GateDecisionRow[] {
  if (!turnIds.length) return [];
  return stmt<GateDecisionRow>(
    db,
    `SELECT id, turn_id AS turnId, session_id AS sessionId, decision, reason, candidate_fact AS candidateFact, llm_model AS model,
       llm_latency_ms AS latencyMs, created_at AS createdAt
     FROM memory_gate_decisions WHERE turn_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, seq`,
  ).all(JSON.stringify(turnIds));
}

export type DecisionGrouping = 'day' | 'week' | 'session';

const GROUP_KEY: Record<DecisionGrouping, { key: string; order: string }> = {
  day: { key: "date(d.created_at / 1000, 'unixepoch')", order: 'key DESC' },
  // 'weekday 0' moves forward to Sunday; six days back is that week's Monday.
  week: { key: "date(d.created_at / 1000, 'unixepoch', 'weekday 0', '-6 days')", order: 'key DESC' },
  session: { key: 'd.session_id', order: 'total DESC, key' },
};

function fromFiltered(q: DecisionQuery): { from: string; params: Record<string, unknown> } {
  const { clauses, params, needsTurn } = decisionWhere(q);
  const from = `FROM memory_gate_decisions d${needsTurn ? ' JOIN conversation_turns t ON t.id = d.turn_id' : ''}
    ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''}`;
  return { from, params };
}

/** Count and mean latency per decision type (types without rows are absent). */
export function countDecisionsByType(db: DB, q: DecisionQuery): Array<{ decision: GateDecision; count: number; avg: number | null }> {
  const { from, params } = fromFiltered(q);
  return stmt<{ decision: GateDecision; count: number; avg: number | null }>(
    db,
    `SELECT d.decision, COUNT(*) AS count, AVG(d.llm_latency_ms) AS avg ${from} GROUP BY d.decision`,
  ).all(params);
}

export interface DecisionGroupRow {
  key: string;
  total: number;
  byDecision: Array<{ decision: GateDecision; count: number }>;
  avg: number | null;
  sessions: number;
}

/** Counts per day, week or session: newest days/weeks first, busiest sessions first; at most `limit` groups. */
export function countDecisionsByGroup(
  db: DB,
  q: DecisionQuery,
  grouping: DecisionGrouping,
  decisions: readonly GateDecision[],
  limit: number,
): DecisionGroupRow[] {
  const { from, params } = fromFiltered(q);
  const g = GROUP_KEY[grouping];
  const counts = decisions.map((d, i) => `SUM(d.decision = '${d}') AS c${i}`).join(', ');
  const raw = stmt<Record<string, number | string | null>>(
    db,
    `SELECT ${g.key} AS key, COUNT(*) AS total, ${counts}, AVG(d.llm_latency_ms) AS avg, COUNT(DISTINCT d.session_id) AS sessions
     ${from} GROUP BY 1 ORDER BY ${g.order} LIMIT @groupLimit`,
  ).all({ ...params, groupLimit: limit });
  return raw.map((r) => ({
    key: String(r.key),
    total: Number(r.total),
    byDecision: decisions.map((decision, i) => ({ decision, count: Number(r[`c${i}`] ?? 0) })),
    avg: r.avg as number | null,
    sessions: Number(r.sessions),
  }));
}
