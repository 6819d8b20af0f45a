// Snapshot retention: keep at most maxSnapshotsPerFile snapshots per memory file by deleting the
// oldest ones nothing references. A referenced snapshot (audit before/after, rollback restore or
// backup, file_state, the operations journal, or any other table's foreign key) is never deleted.
import { MEMORY_FILES, type MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { assertMemoryFileName } from '../files/memoryFiles';
import type { ServiceContext } from '../context';
import { loadSettings } from '../lifecycle/settings';

export const DEFAULT_MAX_SNAPSHOTS_PER_FILE = 100;

/** writeGuardianAuditing.maxSnapshotsPerFile from the workspace's workbench.json (default 100). */
export function configuredMax(workspaceDir: string): number {
  try {
    return loadSettings(workspaceDir).settings.writeGuardianAuditing.maxSnapshotsPerFile;
  } catch {
    return DEFAULT_MAX_SNAPSHOTS_PER_FILE;
  }
}

export interface SnapshotPruneResult {
  maxSnapshotsPerFile: number;
  files: Array<{ fileName: MemoryFileName; before: number; deleted: number; kept: number }>;
  deleted: number;
}

const UNREFERENCED = `
  SELECT s.id FROM file_snapshots s
  WHERE s.file_name = ?
    AND NOT EXISTS (SELECT 1 FROM write_guardian_audit a WHERE a.before_snapshot_id = s.id)
    AND NOT EXISTS (SELECT 1 FROM write_guardian_audit a WHERE a.after_snapshot_id = s.id)
    AND NOT EXISTS (SELECT 1 FROM rollbacks r WHERE r.restored_snapshot_id = s.id)
    AND NOT EXISTS (SELECT 1 FROM rollbacks r WHERE r.backup_snapshot_id = s.id)
    AND NOT EXISTS (SELECT 1 FROM file_state f WHERE f.snapshot_id = s.id)
    AND NOT EXISTS (SELECT 1 FROM file_operations o WHERE o.backup_snapshot_id = s.id)
    AND NOT EXISTS (SELECT 1 FROM file_operations o WHERE o.planned_snapshot_id = s.id)
  ORDER BY s.created_at, s.id
  LIMIT ?`;

export function pruneSnapshots(ctx: ServiceContext, input: { file?: string; maxSnapshotsPerFile?: number } = {}): SnapshotPruneResult {
  const max = input.maxSnapshotsPerFile ?? configuredMax(ctx.workspaceDir);
  if (!Number.isInteger(max) || max < 1) throw new AppError('Invalid', `maxSnapshotsPerFile ${max}: expected a whole number of at least 1`);
  const files = input.file ? [assertMemoryFileName(input.file)] : [...MEMORY_FILES];
  const db = ctx.db;
  const count = db.prepare('SELECT count(*) FROM file_snapshots WHERE file_name = ?').pluck();
  const result: SnapshotPruneResult = { maxSnapshotsPerFile: max, files: [], deleted: 0 };
  for (const fileName of files) {
    const before = count.get(fileName) as number;
    if (before <= max) {
      result.files.push({ fileName, before, deleted: 0, kept: before });
      continue;
    }
    const deleted = writeTx(db, () => {
      const candidates = db.prepare(UNREFERENCED).pluck().all(fileName, before - max) as string[];
      const del = db.prepare('DELETE FROM file_snapshots WHERE id = ?');
      let n = 0;
      for (const id of candidates) {
        try {
          n += del.run(id).changes;
        } catch (e) {
          // Another area's table references it: a failed statement leaves the transaction intact; keep it.
          if (!String((e as Error).message).includes('FOREIGN KEY')) throw e;
        }
      }
      return n;
    });
    result.files.push({ fileName, before, deleted, kept: before - deleted });
    result.deleted += deleted;
  }
  return result;
}
