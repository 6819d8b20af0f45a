// Rollback rows as the audit detail shows them.
import type { RollbackDto } from '../../../shared/contract/guardian';
import type { DB } from '../connection';
import { stmt } from '../statements';

/** A rollbacks row: the contract's RollbackDto plus the backup snapshot kept of the file. */
export interface RollbackRecord extends RollbackDto {
  backupSnapshotId: string | null;
}

const ROLLBACK_COLUMNS = `id, audit_id AS auditId, rolled_back_at AS rolledBackAt, rolled_back_by AS rolledBackBy, reason,
  restored_snapshot_id AS restoredSnapshotId, previous_status AS previousStatus, backup_snapshot_id AS backupSnapshotId,
  mode, rollback_audit_id AS rollbackAuditId`;

/** The rollback that undid an audit, if any. */
export function findRollbackOfAudit(db: DB, auditId: string): RollbackRecord | undefined {
  return stmt<RollbackRecord>(db, `SELECT ${ROLLBACK_COLUMNS} FROM rollbacks WHERE audit_id = ?`).get(auditId);
}

/** The rollback whose own write an audit is, if it is one. */
export function findRollbackRecordedBy(db: DB, rollbackAuditId: string): RollbackRecord | undefined {
  return stmt<RollbackRecord>(db, `SELECT ${ROLLBACK_COLUMNS} FROM rollbacks WHERE rollback_audit_id = ?`).get(rollbackAuditId);
}

/** The status an audit had before its rollback. */
export function findPreviousStatusOfRolledBack(db: DB, auditId: string): string | undefined {
  return stmt(db, 'SELECT previous_status FROM rollbacks WHERE audit_id = ?').pluck().get(auditId) as string | undefined;
}

/** The rollbacks of a session to run: its written plugin and retry writes in a time range, newest first. */
export function listSessionWritesToRollBack(
  db: DB,
  sessionId: string,
  since: number,
  until: number,
): Array<{ auditId: string; targetFile: string; createdAt: number }> {
  return stmt<{ auditId: string; targetFile: string; createdAt: number }>(
    db,
    `SELECT id AS auditId, target_file AS targetFile, created_at AS createdAt FROM write_guardian_audit
     WHERE session_id = ? AND status = 'written' AND source IN ('plugin', 'retry') AND created_at BETWEEN ? AND ?
     ORDER BY created_at DESC, rowid DESC`,
  ).all(sessionId, since, until);
}
