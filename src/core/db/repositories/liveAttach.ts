// Live capture's join of a memory-file change to the plugin's audit of it: the provisional external
// audit to take content from, the plugin writes a change covers, and the moves that settle them.
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface PluginAuditRow {
  rowid: number;
  id: string;
  targetFile: string;
  status: string;
  createdAt: number;
  decisionId: string | null;
  decision: string | null;
  hasContent: number;
  hasFact: number;
  settled: number;
}

/** Plugin audits inserted after rowid, with what each already has. */
export function listPluginAuditsAfter(db: DB, rowid: number): PluginAuditRow[] {
  return stmt<PluginAuditRow>(
    db,
    `SELECT a.rowid AS rowid, a.id, a.target_file AS targetFile, a.status, a.created_at AS createdAt,
          a.decision_id AS decisionId, d.decision,
          (a.before_snapshot_id IS NOT NULL OR a.after_snapshot_id IS NOT NULL OR a.diff IS NOT NULL) AS hasContent,
          (a.candidate_fact IS NOT NULL) AS hasFact,
          (json_extract(coalesce(a.metadata, '{}'), '$.liveCapture') IS NOT NULL) AS settled
        FROM write_guardian_audit a LEFT JOIN memory_gate_decisions d ON d.id = a.decision_id
        WHERE a.rowid > ? AND a.source = 'plugin' ORDER BY a.rowid`,
  ).all(rowid);
}

/** The newest provisional external change of the file in [from, to] that nothing else refers to yet. */
export function findProvisionalChange(db: DB, file: string, from: number, to: number): { id: string; createdAt: number } | undefined {
  return stmt<{ id: string; createdAt: number }>(
    db,
    `SELECT e.id, e.created_at AS createdAt FROM write_guardian_audit e
        WHERE e.source = 'external' AND e.status = 'written' AND e.target_file = @file
          AND e.created_at BETWEEN @from AND @to
          AND json_extract(coalesce(e.metadata, '{}'), '$.liveCapture') IS NULL
          AND NOT EXISTS (SELECT 1 FROM rollbacks r WHERE r.audit_id = e.id OR r.rollback_audit_id = e.id)
          AND NOT EXISTS (SELECT 1 FROM behavior_corrections c WHERE c.audit_id = e.id OR c.retry_audit_id = e.id)
          AND NOT EXISTS (SELECT 1 FROM dataset_samples s WHERE s.audit_id = e.id)
          AND NOT EXISTS (SELECT 1 FROM write_guardian_audit x WHERE x.related_audit_id = e.id)
        ORDER BY e.created_at DESC LIMIT 1`,
  ).get({ file, from, to });
}

/** When the file last changed with known content before `at`, other than this audit; null when never. */
export function findPreviousChangeAt(db: DB, file: string, at: number, exceptId: string): number | null {
  return stmt(
    db,
    `SELECT max(created_at) FROM write_guardian_audit
        WHERE target_file = @file AND created_at < @at AND id <> @id AND (after_snapshot_id IS NOT NULL OR diff IS NOT NULL)`,
  )
    .pluck()
    .get({ file, at, id: exceptId }) as number | null;
}

/** When the before-content of this audit was first seen (its before snapshot's time). */
export function findBeforeSeenAt(db: DB, auditId: string): number | undefined {
  return stmt(db, 'SELECT s.created_at FROM write_guardian_audit e JOIN file_snapshots s ON s.id = e.before_snapshot_id WHERE e.id = ?')
    .pluck()
    .get(auditId) as number | undefined;
}

// A plugin write the workbench has neither content nor a settlement for.
const UNSETTLED = `source = 'plugin' AND status = 'written' AND before_snapshot_id IS NULL AND after_snapshot_id IS NULL
  AND diff IS NULL AND json_extract(coalesce(metadata, '{}'), '$.liveCapture') IS NULL`;

export function listUnsettledWritesBetween(db: DB, file: string, from: number, to: number, exceptId: string): string[] {
  return stmt(
    db,
    `SELECT id FROM write_guardian_audit
        WHERE target_file = @file AND ${UNSETTLED} AND created_at > @from AND created_at < @to AND id <> @id ORDER BY created_at`,
  )
    .pluck()
    .all({ file, from, to, id: exceptId }) as string[];
}

export function findFirstUnsettledWriteFrom(db: DB, file: string, from: number): string | undefined {
  return stmt(
    db,
    `SELECT id FROM write_guardian_audit
        WHERE target_file = @file AND ${UNSETTLED} AND created_at >= @from ORDER BY created_at, rowid LIMIT 1`,
  )
    .pluck()
    .get({ file, from }) as string | undefined;
}

/** Settles a plugin write without a diff: its change on disk is `changeId`, shared with other writes. */
export function markWriteCoalesced(db: DB, id: string, changeId: string): void {
  stmt(
    db,
    `UPDATE write_guardian_audit
        SET metadata = json_set(coalesce(metadata, '{}'), '$.liveCapture', json_object('coalescedInto', @change)) WHERE id = @id`,
  ).run({ id, change: changeId });
}

export function markChangeCovers(db: DB, changeId: string, writerIdsJson: string): void {
  stmt(
    db,
    `UPDATE write_guardian_audit
        SET metadata = json_set(coalesce(metadata, '{}'), '$.liveCapture', json_object('coversPluginWrites', json(@ids))) WHERE id = @change`,
  ).run({
    change: changeId,
    ids: writerIdsJson,
  });
}

/** Moves the provisional change's content onto the plugin audit (when it has none); returns 1 when moved. */
export function moveChangeContent(db: DB, fromId: string, toId: string, changedAt: number): number {
  return stmt(
    db,
    `UPDATE write_guardian_audit SET
          (before_snapshot_id, after_snapshot_id, diff, lines_added, lines_removed, lines_modified) =
          (SELECT before_snapshot_id, after_snapshot_id, diff, lines_added, lines_removed, lines_modified FROM write_guardian_audit WHERE id = @from),
          metadata = json_set(coalesce(metadata, '{}'), '$.liveCapture', json_object('changedAt', @changedAt, 'provisionalAuditId', @from))
        WHERE id = @to AND before_snapshot_id IS NULL AND after_snapshot_id IS NULL AND diff IS NULL`,
  ).run({ from: fromId, to: toId, changedAt }).changes;
}

export function moveFileStateAudit(db: DB, fromId: string, toId: string): void {
  stmt(db, 'UPDATE file_state SET audit_id = @to WHERE audit_id = @from').run({ from: fromId, to: toId });
}

export function deleteProvisionalAudit(db: DB, id: string): void {
  stmt(db, "DELETE FROM write_guardian_audit WHERE id = ? AND source = 'external'").run(id);
}

/** The newest unclaimed audit-log line with a candidate fact for this decision and status in [from, to]. */
export function findUnclaimedAuditLine(
  db: DB,
  decision: string,
  status: string,
  from: number,
  to: number,
): { id: string; fact: string; reason: string | null } | undefined {
  return stmt<{ id: string; fact: string; reason: string | null }>(
    db,
    `SELECT id, candidate_fact AS fact, reason FROM guardian_log_lines
        WHERE decision = ? AND status = ? AND at BETWEEN ? AND ? AND audit_id IS NULL AND candidate_fact IS NOT NULL
        ORDER BY at DESC LIMIT 1`,
  ).get(decision, status, from, to);
}

/** Gives the audit (and its decision) the log line's candidate fact where they have none, and claims the line. */
export function fillFactFromLogLine(
  db: DB,
  auditId: string,
  decisionId: string | null,
  line: { id: string; fact: string; reason: string | null },
): void {
  stmt(db, 'UPDATE write_guardian_audit SET candidate_fact = ?, reason = coalesce(reason, ?) WHERE id = ? AND candidate_fact IS NULL').run(
    line.fact,
    line.reason,
    auditId,
  );
  if (decisionId)
    stmt(db, 'UPDATE memory_gate_decisions SET candidate_fact = ? WHERE id = ? AND candidate_fact IS NULL').run(line.fact, decisionId);
  stmt(db, 'UPDATE guardian_log_lines SET audit_id = ? WHERE id = ?').run(auditId, line.id);
}
