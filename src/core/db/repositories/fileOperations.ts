// file_operations: the intent a workbench write records before it touches a memory file, so a crash in between
// can be finished or cancelled on the next open; plus the database effects a committed rollback or retry applies.
import type { MemoryFileName } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface OperationRow {
  id: string;
  kind: 'rollback' | 'retry';
  target_file: MemoryFileName;
  audit_id: string;
  expected_hash: string | null;
  planned_hash: string | null;
  backup_snapshot_id: string | null;
  planned_snapshot_id: string | null;
  plan: string;
  state: 'planned' | 'committed' | 'abandoned';
  created_at: number;
}

export interface OperationInsert {
  id: string;
  kind: string;
  targetFile: string;
  auditId: string;
  expectedHash: string | null;
  plannedHash: string | null;
  backupSnapshotId: string | null;
  plannedSnapshotId: string | null;
  plan: string;
  createdAt: number;
}

export function findUnfinishedOperationOnFile(db: DB, file: string): string | undefined {
  return stmt(db, "SELECT id FROM file_operations WHERE target_file = ? AND state = 'planned'").pluck().get(file) as string | undefined;
}

export function insertPlannedOperation(db: DB, o: OperationInsert): void {
  stmt(
    db,
    `INSERT INTO file_operations (id, kind, target_file, audit_id, expected_hash, planned_hash, backup_snapshot_id, planned_snapshot_id, plan, state, created_at)
     VALUES (@id, @kind, @targetFile, @auditId, @expectedHash, @plannedHash, @backupSnapshotId, @plannedSnapshotId, @plan, 'planned', @createdAt)`,
  ).run(o);
}

export function findOperationById(db: DB, id: string): OperationRow | undefined {
  return stmt<OperationRow>(db, 'SELECT * FROM file_operations WHERE id = ?').get(id);
}

export function markOperationCommitted(db: DB, id: string, at: number, message: string | null): void {
  stmt(db, "UPDATE file_operations SET state = 'committed', finished_at = ?, message = ? WHERE id = ?").run(at, message, id);
}

/** Cancels a planned operation and releases its snapshots (nothing else references them), so retention can prune them. */
export function markOperationAbandoned(db: DB, id: string, at: number, message: string): void {
  stmt(
    db,
    `UPDATE file_operations SET state = 'abandoned', finished_at = ?, message = ?, backup_snapshot_id = NULL, planned_snapshot_id = NULL
     WHERE id = ? AND state = 'planned'`,
  ).run(at, message, id);
}

export function listFilesWithPlannedOperations(db: DB): MemoryFileName[] {
  return stmt(db, "SELECT DISTINCT target_file FROM file_operations WHERE state = 'planned'").pluck().all() as MemoryFileName[];
}

export function listPlannedOperationsOnFile(db: DB, file: string): OperationRow[] {
  return stmt<OperationRow>(db, "SELECT * FROM file_operations WHERE state = 'planned' AND target_file = ? ORDER BY created_at, id").all(
    file,
  );
}

export function listPlannedOperations(
  db: DB,
): Array<{ id: string; kind: string; targetFile: MemoryFileName; auditId: string; createdAt: number }> {
  return stmt<{ id: string; kind: string; targetFile: MemoryFileName; auditId: string; createdAt: number }>(
    db,
    "SELECT id, kind, target_file AS targetFile, audit_id AS auditId, created_at AS createdAt FROM file_operations WHERE state = 'planned' ORDER BY created_at",
  ).all();
}

/** Links a correction to the retry that applied it. */
export function linkCorrectionToRetry(db: DB, correctionId: string, retryAuditId: string): void {
  stmt(db, 'UPDATE behavior_corrections SET retry_audit_id = ? WHERE id = ?').run(retryAuditId, correctionId);
}

/** Marks a written audit rolled back; 0 when it is no longer a written audit. */
export function markAuditRolledBack(db: DB, auditId: string): number {
  return stmt(db, "UPDATE write_guardian_audit SET status = 'rolled_back' WHERE id = ? AND status = 'written'").run(auditId).changes;
}

export interface RollbackInsert {
  id: string;
  auditId: string;
  at: number;
  by: string;
  reason: string;
  restoredSnapshotId: string | null;
  previousStatus: string;
  backupSnapshotId: string | null;
  mode: string;
  rollbackAuditId: string;
}

export function insertRollback(db: DB, r: RollbackInsert): void {
  stmt(
    db,
    `INSERT INTO rollbacks (id, audit_id, rolled_back_at, rolled_back_by, reason, restored_snapshot_id, previous_status, backup_snapshot_id, mode, rollback_audit_id)
     VALUES (@id, @auditId, @at, @by, @reason, @restoredSnapshotId, @previousStatus, @backupSnapshotId, @mode, @rollbackAuditId)`,
  ).run(r);
}
