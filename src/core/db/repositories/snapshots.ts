// Pruning old file snapshots: only those no audit, rollback, file state or pending operation refers to.
import type { DB } from '../connection';
import { stmt } from '../statements';

export function countSnapshotsOfFile(db: DB, fileName: string): number {
  return stmt(db, 'SELECT count(*) FROM file_snapshots WHERE file_name = ?').pluck().get(fileName) as number;
}

/** Up to `limit` snapshots of a file nothing refers to, oldest first. */
export function listUnreferencedSnapshots(db: DB, fileName: string, limit: number): string[] {
  return stmt(
    db,
    `SELECT s.id FROM file_snapshots s
     WHERE s.file_name = ?
       AND NOT EXISTS (SELECT 1 FROM write_guardian_audit a WHERE a.before_snapshot_id = s.id)
       AND NOT EXISTS (SELECT 1 FROM write_guardian_audit a WHERE a.after_snapshot_id = s.id)
       AND NOT EXISTS (SELECT 1 FROM rollbacks r WHERE r.restored_snapshot_id = s.id)
       AND NOT EXISTS (SELECT 1 FROM rollbacks r WHERE r.backup_snapshot_id = s.id)
       AND NOT EXISTS (SELECT 1 FROM file_state f WHERE f.snapshot_id = s.id)
       AND NOT EXISTS (SELECT 1 FROM file_operations o WHERE o.backup_snapshot_id = s.id)
       AND NOT EXISTS (SELECT 1 FROM file_operations o WHERE o.planned_snapshot_id = s.id)
     ORDER BY s.created_at, s.id
     LIMIT ?`,
  )
    .pluck()
    .all(fileName, limit) as string[];
}

/** Deletes one snapshot; a table of another area that still references it makes this throw a FOREIGN KEY error. */
export function deleteSnapshot(db: DB, id: string): number {
  return stmt(db, 'DELETE FROM file_snapshots WHERE id = ?').run(id).changes;
}
