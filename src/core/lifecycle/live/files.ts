// Reading the memory files while the plugin may be writing them: stat signatures, its lock, settled reads.
import fs from 'node:fs';
import type { MemoryFileName } from '../../../shared/domain';
import { writeTx, type DB } from '../../db/connection';
import { getSnapshot } from '../../db/snapshots';
import { LOCK_STALE_MS } from '../../files/memoryFiles';
import { getFileState, setFileState } from '../../guardian/external';
import { RecorderCore } from '../../recorder/recorder';
import { writeInput } from '../../recorder/schemas';
import { sha256 } from '../../text/diff';

export function statOf(file: string): { sig: string; mtime?: number } {
  try {
    const st = fs.statSync(file);
    return { sig: `${st.ino}:${st.size}:${st.mtimeMs}`, mtime: Math.round(st.mtimeMs) };
  } catch {
    return { sig: 'absent' };
  }
}

export const statSig = (file: string) => statOf(file).sig;

/** A proper-lockfile lock (a "<file>.lock" folder) that is fresh means the plugin is mid-write. */
function lockedNow(file: string, now: number): boolean {
  try {
    const st = fs.statSync(`${file}.lock`);
    return now - st.mtimeMs < LOCK_STALE_MS;
  } catch {
    return false;
  }
}

/**
 * The file's content (null when absent) if it is settled: no fresh lock, and the same size and time
 * before and after the read. Otherwise 'busy': the plugin is mid-write (a truncated or half-written file).
 */
export function readSettled(file: string, first: { sig: string }): string | null | 'busy' {
  if (lockedNow(file, Date.now())) return 'busy';
  let content: string | null;
  try {
    content = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    content = null;
  }
  if (statOf(file).sig !== first.sig || lockedNow(file, Date.now())) return 'busy';
  return content;
}

/**
 * Records a memory file's content as seen on disk, the way recordExternalChanges does (a first look
 * is a baseline; a difference is a source='external' write with snapshots and diff), but with the
 * content this pass read between two identical stats and timed by the file's modification time.
 * Returns the audit id of the change, if any.
 */
export function recordObservedChange(db: DB, name: MemoryFileName, content: string | null, at: number): string | null {
  return writeTx(db, () => {
    const state = getFileState(db, name);
    if (!state) {
      setFileState(db, name, content, at);
      return null;
    }
    if ((content === null ? null : sha256(content)) === state.contentHash) return null;
    const before = state.snapshotId ? (getSnapshot(db, state.snapshotId)?.content ?? null) : null;
    const recorded = new RecorderCore(db).recordWriteInTx(
      writeInput.parse({
        targetFile: name,
        before,
        after: content,
        status: 'written',
        source: 'external',
        reason: 'changed outside the workbench and the plugin recorder',
        createdAt: Math.max(at, state.observedAt),
      }),
    );
    return recorded.auditId;
  });
}
