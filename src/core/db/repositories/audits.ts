// write_guardian audits read as the contract's AuditRow: the write outcomes a decision or a timeline shows.
import type { AuditRow } from '../../../shared/contract/records';
import type { AuditSource, AuditStatus, MemoryFileName } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

interface WriteOutcomeDbRow {
  id: string;
  decision_id: string | null;
  turn_id: string | null;
  session_id: string | null;
  target_file: MemoryFileName;
  candidate_fact: string | null;
  status: AuditStatus;
  source: AuditSource;
  reason: string | null;
  lines_added: number | null;
  lines_removed: number | null;
  lines_modified: number | null;
  created_at: number;
  diff?: string | null;
}

const WRITE_COLUMNS = `id, decision_id, turn_id, session_id, target_file, candidate_fact, status, source, reason,
  lines_added, lines_removed, lines_modified, created_at`;

function writeOutcomeFromRow(r: WriteOutcomeDbRow): AuditRow {
  const counted = r.lines_added !== null || r.lines_removed !== null || r.lines_modified !== null;
  return {
    id: r.id,
    decisionId: r.decision_id,
    turnId: r.turn_id,
    sessionId: r.session_id,
    targetFile: r.target_file,
    candidateFact: r.candidate_fact,
    status: r.status,
    source: r.source,
    reason: r.reason,
    lineChanges: counted ? { added: r.lines_added ?? 0, removed: r.lines_removed ?? 0, modified: r.lines_modified ?? 0 } : null,
    createdAt: r.created_at,
    ...(r.diff !== undefined ? { diff: r.diff } : {}),
  };
}

/** The writes a decision led to, in the order they happened; with their diffs when asked. */
export function listWritesOfDecision(db: DB, decisionId: string, withDiff = false): AuditRow[] {
  return stmt<WriteOutcomeDbRow>(
    db,
    `SELECT ${WRITE_COLUMNS}${withDiff ? ', diff' : ''} FROM write_guardian_audit WHERE decision_id = ? ORDER BY rowid`,
  )
    .all(decisionId)
    .map(writeOutcomeFromRow);
}

/** The writes of several turns at once (one indexed probe per turn). */
export function listWritesOfTurns(db: DB, turnIds: string[]): AuditRow[] {
  if (!turnIds.length) return [];
  return stmt<WriteOutcomeDbRow>(
    db,
    `SELECT ${WRITE_COLUMNS} FROM write_guardian_audit WHERE turn_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, rowid`,
  )
    .all(JSON.stringify(turnIds))
    .map(writeOutcomeFromRow);
}

/** A write_guardian_audit row as stored (with its rowid, the second keyset column). */
export interface AuditDbRow {
  rowid: number;
  id: string;
  decision_id: string | null;
  turn_id: string | null;
  session_id: string | null;
  target_file: MemoryFileName;
  candidate_fact: string | null;
  before_snapshot_id: string | null;
  after_snapshot_id: string | null;
  diff: string | null;
  lines_added: number | null;
  lines_removed: number | null;
  lines_modified: number | null;
  status: AuditStatus;
  reason: string | null;
  llm_model: string | null;
  llm_latency_ms: number | null;
  agent_steps: number | null;
  source: AuditSource;
  related_audit_id: string | null;
  metadata: string | null;
  created_at: number;
}

export const AUDIT_COLUMNS = `a.rowid AS rowid, a.id, a.decision_id, a.turn_id, a.session_id, a.target_file, a.candidate_fact,
  a.before_snapshot_id, a.after_snapshot_id, a.diff, a.lines_added, a.lines_removed, a.lines_modified, a.status, a.reason,
  a.llm_model, a.llm_latency_ms, a.agent_steps, a.source, a.related_audit_id, a.metadata, a.created_at`;

/** The contract's AuditRow of a stored row; the diff only when asked (lists leave it out). */
export function auditFromDbRow(r: AuditDbRow, withDiff = false): AuditRow {
  return {
    ...writeOutcomeFromRow({ ...r, diff: withDiff ? r.diff : undefined }),
    beforeSnapshotId: r.before_snapshot_id,
    afterSnapshotId: r.after_snapshot_id,
    relatedAuditId: r.related_audit_id,
    contentKnown: r.diff !== null || (r.before_snapshot_id !== null && r.after_snapshot_id !== null),
  };
}

export function findAuditDbRow(db: DB, id: string): AuditDbRow | undefined {
  return stmt<AuditDbRow>(db, `SELECT ${AUDIT_COLUMNS} FROM write_guardian_audit a WHERE a.id = ?`).get(id);
}

export interface AuditFilter {
  sessionId?: string;
  file?: MemoryFileName;
  status?: AuditStatus;
  source?: AuditSource;
  since?: number;
  /** Inclusive. */
  until?: number;
  /** The (created_at, rowid) of the previous page's last row. */
  after?: [number, number];
  limitPlusOne: number;
}

/** One page of audits, newest first. */
export function listAuditsPage(db: DB, f: AuditFilter): AuditDbRow[] {
  const where: string[] = [];
  const params: Record<string, unknown> = { limitPlusOne: f.limitPlusOne };
  const add = (clause: string, values: Record<string, unknown>) => {
    where.push(clause);
    Object.assign(params, values);
  };
  if (f.sessionId) add('a.session_id = @sessionId', { sessionId: f.sessionId });
  if (f.file) add('a.target_file = @file', { file: f.file });
  if (f.status) add('a.status = @status', { status: f.status });
  if (f.source) add('a.source = @source', { source: f.source });
  if (f.since !== undefined) add('a.created_at >= @since', { since: f.since });
  if (f.until !== undefined) add('a.created_at <= @until', { until: f.until });
  if (f.after)
    add('(a.created_at < @afterAt OR (a.created_at = @afterAt AND a.rowid < @afterRowid))', {
      afterAt: f.after[0],
      afterRowid: f.after[1],
    });
  const sql = `SELECT ${AUDIT_COLUMNS} FROM write_guardian_audit a ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY a.created_at DESC, a.rowid DESC LIMIT @limitPlusOne`;
  return stmt<AuditDbRow>(db, sql).all(params);
}

/** Later workbench writes that point back at this one (retries, rollbacks), oldest first. */
export function listFollowUpAudits(db: DB, auditId: string): AuditDbRow[] {
  return stmt<AuditDbRow>(
    db,
    `SELECT ${AUDIT_COLUMNS} FROM write_guardian_audit a WHERE a.related_audit_id = ? ORDER BY a.created_at, a.rowid`,
  ).all(auditId);
}

export interface FileVersionDbRow extends AuditDbRow {
  content_hash: string | null;
  rb_at: number | null;
  rb_by: string | null;
  rb_reason: string | null;
  rb_audit: string | null;
}

/** Written (or later rolled back) versions of one memory file, newest first, with the rollback that undid each. */
export function listFileVersions(
  db: DB,
  file: MemoryFileName,
  after: [number, number] | undefined,
  limitPlusOne: number,
): FileVersionDbRow[] {
  return stmt<FileVersionDbRow>(
    db,
    `SELECT ${AUDIT_COLUMNS}, s.content_hash, r.rolled_back_at AS rb_at, r.rolled_back_by AS rb_by, r.reason AS rb_reason, r.rollback_audit_id AS rb_audit
     FROM write_guardian_audit a
     LEFT JOIN file_snapshots s ON s.id = a.after_snapshot_id
     LEFT JOIN rollbacks r ON r.audit_id = a.id
     WHERE a.target_file = @file AND a.status IN ('written', 'rolled_back')
       AND (@afterAt IS NULL OR a.created_at < @afterAt OR (a.created_at = @afterAt AND a.rowid < @afterRowid))
     ORDER BY a.created_at DESC, a.rowid DESC LIMIT @limitPlusOne`,
  ).all({ file, afterAt: after?.[0] ?? null, afterRowid: after?.[1] ?? null, limitPlusOne });
}

/** How many audits carry each status (statuses without audits are absent). Served by the (status, created_at) index. */
export function countAuditsByStatus(db: DB): Array<{ status: AuditStatus; n: number }> {
  return stmt<{ status: AuditStatus; n: number }>(db, 'SELECT status, count(*) AS n FROM write_guardian_audit GROUP BY status').all();
}

export interface AuditBrief {
  id: string;
  targetFile: MemoryFileName;
  candidateFact: string | null;
  status: AuditStatus;
  createdAt: number;
}

/** Short descriptions of up to a few hundred audits by id; json_each keeps one statement for any number of ids. */
export function listAuditBriefs(db: DB, ids: readonly string[]): AuditBrief[] {
  return stmt<AuditBrief>(
    db,
    `SELECT id, target_file AS targetFile, candidate_fact AS candidateFact, status, created_at AS createdAt
     FROM write_guardian_audit WHERE id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(ids));
}

/** Content of a stored snapshot; undefined when no snapshot has that id. */
export function findSnapshotContent(db: DB, id: string): string | undefined {
  return stmt(db, 'SELECT content FROM file_snapshots WHERE id = ?').pluck().get(id) as string | undefined;
}

/** Audits to export, oldest first, one at a time (with both contents when asked); excluded sessions never leave. */
export function* iterateAuditsForExport(
  db: DB,
  f: Omit<AuditFilter, 'after' | 'limitPlusOne' | 'source'>,
  includeContent: boolean,
): Generator<AuditDbRow & { before_content: string | null; after_content: string | null }> {
  const where = ['(a.session_id IS NULL OR a.session_id NOT IN (SELECT session_id FROM excluded_sessions))'];
  const params: Record<string, unknown> = {};
  const add = (clause: string, name: string, value: unknown) => {
    where.push(clause);
    params[name] = value;
  };
  if (f.sessionId) add('a.session_id = @sessionId', 'sessionId', f.sessionId);
  if (f.file) add('a.target_file = @file', 'file', f.file);
  if (f.status) add('a.status = @status', 'status', f.status);
  if (f.since !== undefined) add('a.created_at >= @since', 'since', f.since);
  if (f.until !== undefined) add('a.created_at <= @until', 'until', f.until);
  const content = includeContent
    ? ', (SELECT content FROM file_snapshots WHERE id = a.before_snapshot_id) AS before_content, (SELECT content FROM file_snapshots WHERE id = a.after_snapshot_id) AS after_content'
    : ', NULL AS before_content, NULL AS after_content';
  // iterate() keeps the statement busy until the export ends, so it gets its own statement.
  const s = db.prepare(
    `SELECT ${AUDIT_COLUMNS}${content} FROM write_guardian_audit a WHERE ${where.join(' AND ')} ORDER BY a.created_at, a.rowid`,
  );
  yield* s.iterate(params) as IterableIterator<AuditDbRow & { before_content: string | null; after_content: string | null }>;
}
