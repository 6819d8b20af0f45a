// Sessions as the workbench lists them: newest activity first, keyset-paged on (last_activity_at, rowid).
import type { SessionDetail, SessionRow } from '../../../shared/contract/records';
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface SessionFilter {
  channelId?: string;
  /** Lower-cased substring of the session key. */
  query?: string;
  /** The (last_activity_at, rowid) of the previous page's last row. */
  after?: [number, number];
  limitPlusOne: number;
}

export interface SessionDbRow {
  rid: number;
  id: string;
  channel_id: string;
  conversation_target: string | null;
  account_id: string | null;
  created_at: number;
  last_activity_at: number;
  metadata: string | null;
  turn_count: number;
  decision_count: number;
  excluded: number;
}

const SESSION_COLUMNS = `s.rowid AS rid, s.*,
      (SELECT count(*) FROM conversation_turns t WHERE t.session_id = s.id) AS turn_count,
      (SELECT count(*) FROM memory_gate_decisions d WHERE d.session_id = s.id) AS decision_count,
      EXISTS (SELECT 1 FROM excluded_sessions x WHERE x.session_id = s.id) AS excluded`;

export const sessionFromRow = (r: SessionDbRow): SessionRow => ({
  id: r.id,
  channelId: r.channel_id,
  conversationTarget: r.conversation_target,
  accountId: r.account_id,
  createdAt: r.created_at,
  lastActivityAt: r.last_activity_at,
  turnCount: r.turn_count,
  decisionCount: r.decision_count,
  excluded: Boolean(r.excluded),
});

/** The SQL of one page, exposed so tests can check its query plan. */
export function listSessionsSql(f: SessionFilter): { sql: string; params: Record<string, unknown> } {
  const clauses: string[] = [];
  const params: Record<string, unknown> = { limitPlusOne: f.limitPlusOne };
  if (f.channelId) {
    clauses.push('s.channel_id = @channelId');
    params.channelId = f.channelId;
  }
  if (f.query) {
    clauses.push('instr(lower(s.id), @query) > 0');
    params.query = f.query;
  }
  if (f.after) {
    clauses.push('(s.last_activity_at, s.rowid) < (@cursorAt, @cursorRowid)');
    params.cursorAt = f.after[0];
    params.cursorRowid = f.after[1];
  }
  const sql = `SELECT ${SESSION_COLUMNS}
    FROM sessions s ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''}
    ORDER BY s.last_activity_at DESC, s.rowid DESC LIMIT @limitPlusOne`;
  return { sql, params };
}

/** One page of sessions with the rowid each page's cursor needs. */
/** Stored rows of one page (map with sessionFromRow) with the rowid each page's cursor needs. */
export function listSessionsPage(db: DB, f: SessionFilter): SessionDbRow[] {
  const { sql, params } = listSessionsSql(f);
  return stmt<SessionDbRow>(db, sql).all(params);
}

export function findSessionById(db: DB, id: string): SessionDetail | undefined {
  const r = stmt<SessionDbRow & { write_count: number }>(
    db,
    `SELECT ${SESSION_COLUMNS}, (SELECT count(*) FROM write_guardian_audit a WHERE a.session_id = s.id) AS write_count
     FROM sessions s WHERE s.id = ?`,
  ).get(id);
  if (!r) return undefined;
  return {
    ...sessionFromRow(r),
    metadata: r.metadata ? (JSON.parse(r.metadata) as Record<string, unknown>) : null,
    writeCount: r.write_count,
  };
}

export function sessionExists(db: DB, id: string): boolean {
  return stmt(db, 'SELECT 1 FROM sessions WHERE id = ?').get(id) !== undefined;
}
