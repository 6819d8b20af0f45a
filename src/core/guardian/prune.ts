// Snapshot retention: keep at most maxSnapshotsPerFile snapshots per memory file by deleting the
// oldest ones nothing references. A referenced snapshot (audit before/after, rollback restore or
// backup, file_state, the operations journal, or any other table's foreign key) is never deleted.
import { MEMORY_FILES, type MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { assertMemoryFileName } from '../files/memoryFiles';
import type { ServiceContext } from '../context';
import { loadSettings } from '../lifecycle/settings';
import { countSnapshotsOfFile, deleteSnapshot, listUnreferencedSnapshots } from '../db/repositories/snapshots';

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

export function pruneSnapshots(ctx: ServiceContext, input: { file?: string; maxSnapshotsPerFile?: number } = {}): SnapshotPruneResult {
  const max = input.maxSnapshotsPerFile ?? configuredMax(ctx.workspaceDir);
  if (!Number.isInteger(max) || max < 1) throw new AppError('Invalid', `maxSnapshotsPerFile ${max}: expected a whole number of at least 1`);
  const files = input.file ? [assertMemoryFileName(input.file)] : [...MEMORY_FILES];
  const db = ctx.db;
  const result: SnapshotPruneResult = { maxSnapshotsPerFile: max, files: [], deleted: 0 };
  for (const fileName of files) {
    const before = countSnapshotsOfFile(db, fileName);
    if (before <= max) {
      result.files.push({ fileName, before, deleted: 0, kept: before });
      continue;
    }
    const deleted = writeTx(db, () => {
      const candidates = listUnreferencedSnapshots(db, fileName, before - max);
      let n = 0;
      for (const id of candidates) {
        try {
          n += deleteSnapshot(db, id);
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
