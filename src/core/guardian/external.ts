// Changes made outside the recorder (manual edits, the plugin's consolidation, a text editor):
// the disk is compared with the last content the workbench saw (file_state), and each difference
// becomes a source='external' audit with snapshots and a diff, so a file's history has no holes.
import { MEMORY_FILES, type LineChanges, type MemoryFileName } from '../../shared/domain';
import { writeTx, type DB } from '../db/connection';
import { storeSnapshot } from '../db/snapshots';
import { RecorderCore } from '../recorder/recorder';
import { writeInput } from '../recorder/schemas';
import { readMemoryFile } from '../files/memoryFiles';
import { nowOf, type ServiceContext } from '../context';
import { sha256 } from '../text/diff';
import { findFileState, upsertFileState, type FileStateRow } from '../db/repositories/fileState';
import { snapshotContent } from './rows';

export interface ExternalChange {
  fileName: MemoryFileName;
  kind: 'created' | 'modified' | 'deleted';
  auditId: string;
  beforeSnapshotId: string | null;
  afterSnapshotId: string | null;
  lines: LineChanges | null;
}

export type { FileStateRow } from '../db/repositories/fileState';

export function getFileState(db: DB, fileName: MemoryFileName): FileStateRow | undefined {
  return findFileState(db, fileName);
}

/** Sets what the workbench last saw of a file (used for baselines; recorded writes move it by trigger). Call inside a transaction. */
export function setFileState(db: DB, fileName: MemoryFileName, content: string | null, at: number, auditId: string | null = null): void {
  const snapshotId = content === null ? null : storeSnapshot(db, fileName, content, at);
  upsertFileState(db, { fileName, snapshotId, contentHash: content === null ? null : sha256(content), auditId, at });
}

function lastSeenContent(db: DB, state: FileStateRow): string | null {
  if (!state.snapshotId) return null;
  return snapshotContent(db, state.snapshotId);
}

/**
 * Compares the five memory files on disk with the last content the workbench saw and records
 * each difference as an audit (status 'written', source 'external'; before = last seen, after = disk).
 * The first observation of a file only records a baseline (no audit). Returns the recorded changes.
 * Files that cannot be read safely (e.g. a symlink leaving the workspace) are skipped.
 */
export function recordExternalChanges(ctx: ServiceContext, files: readonly MemoryFileName[] = MEMORY_FILES): ExternalChange[] {
  const disk = new Map<MemoryFileName, string | null>();
  for (const f of files) {
    try {
      disk.set(f, readMemoryFile(ctx.workspaceDir, f));
    } catch {
      /* unsafe or unreadable: leave it out rather than record a false change */
    }
  }
  const at = nowOf(ctx);
  return writeTx(ctx.db, () => {
    const changes: ExternalChange[] = [];
    let recorder: RecorderCore | undefined;
    for (const [fileName, content] of disk) {
      const state = getFileState(ctx.db, fileName);
      if (!state) {
        setFileState(ctx.db, fileName, content, at);
        continue;
      }
      const diskHash = content === null ? null : sha256(content);
      if (diskHash === state.contentHash) continue;
      const before = lastSeenContent(ctx.db, state);
      recorder ??= new RecorderCore(ctx.db);
      // Never earlier than what it follows, so history stays ordered even under a skewed clock.
      const createdAt = Math.max(at, state.observedAt);
      const recorded = recorder.recordWriteInTx(
        writeInput.parse({
          targetFile: fileName,
          before,
          after: content,
          status: 'written',
          source: 'external',
          reason: 'changed outside the workbench and the plugin recorder',
          createdAt,
        }),
      );
      changes.push({
        fileName,
        kind: before === null ? 'created' : content === null ? 'deleted' : 'modified',
        auditId: recorded.auditId,
        beforeSnapshotId: recorded.beforeSnapshotId,
        afterSnapshotId: recorded.afterSnapshotId,
        lines: recorded.lines,
      });
    }
    return changes;
  });
}
