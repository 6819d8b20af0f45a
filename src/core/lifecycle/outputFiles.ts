// Files the workbench writes for the user (exports, archives, backups): never over an existing file
// unless asked, and no half-written leftovers after a crash.
import fs from 'node:fs';
import path from 'node:path';
import { STATE_DIR } from '../db/connection';
import { MEMORY_FILES } from '../../shared/domain';
import { pidAlive, releaseDeadOwnLock } from '../files/memoryFiles';
import { AppError } from '../../shared/errors';

/** A `*.partial` file not modified for this long belongs to a writer that is gone (writers touch it as they stream). */
export const STALE_PARTIAL_MS = 10 * 60 * 1000;

/**
 * Refuses to write over existing files: every export and backup calls this at its entry with all
 * the files it will write, so nothing is replaced unless the caller passed overwrite (--overwrite).
 */
export function refuseExisting(paths: readonly string[], overwrite = false): void {
  if (overwrite) return;
  const existing = paths.filter((p) => {
    try {
      fs.lstatSync(p);
      return true;
    } catch {
      return false;
    }
  });
  if (existing.length) {
    const list = existing.map((p) => path.basename(p)).join(', ');
    throw new AppError(
      'Conflict',
      `${list} already exist${existing.length === 1 ? 's' : ''} in ${path.dirname(existing[0]!)}; nothing was written (pass --overwrite, or overwrite: true, to replace)`,
    );
  }
}

/**
 * An export that writes a whole folder (dataset export: data files, README card, dataset_info, licence)
 * refuses a folder that already holds files, so no earlier export is partly replaced.
 */
export function refuseFilledFolder(dir: string, overwrite = false): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR')
      throw new AppError('Conflict', `${dir} is a file, not a folder; nothing was written`);
    throw e;
  }
  // A crashed export's partial files are litter, not an earlier export: the new one replaces them.
  refuseExisting(
    names.filter((n) => !/\.partial(-\d+)?$/.test(n)).map((n) => path.join(dir, n)),
    overwrite,
  );
}

const PID_PARTIAL = /\.partial-(\d+)(-wal|-shm|-journal)?$/;

/** Whether a leftover is safe to delete: its writer's pid is dead, or (no pid in the name) it has not changed for a long time. */
function isStalePartial(file: string, name: string, now: number): boolean {
  const m = PID_PARTIAL.exec(name);
  if (m) {
    const pid = Number(m[1]);
    return pid !== process.pid && !pidAlive(pid);
  }
  if (!name.endsWith('.partial')) return false;
  try {
    return now - fs.statSync(file).mtimeMs > STALE_PARTIAL_MS;
  } catch {
    return false;
  }
}

/** Removes stale partial files directly in dir; returns what was removed. */
export function removeStalePartials(dir: string, now = Date.now()): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    if (!isStalePartial(file, name, now)) continue;
    try {
      if (!fs.lstatSync(file).isFile()) continue;
      fs.rmSync(file, { force: true });
      removed.push(file);
    } catch {
      // raced with its owner or another cleaner: fine
    }
  }
  return removed;
}

/**
 * Start-up cleaning of a workspace: partial backups of dead processes and stale partial exports,
 * in the backups and exports folders and the dataset export folders one level below, and memory-file
 * locks a dead workbench process left.
 */
export function cleanCrashLitter(workspaceDir: string, now = Date.now()): string[] {
  const state = path.join(workspaceDir, STATE_DIR);
  const exports = path.join(state, 'exports');
  const dirs = [path.join(state, 'backups'), exports, state];
  try {
    for (const d of fs.readdirSync(exports, { withFileTypes: true })) if (d.isDirectory()) dirs.push(path.join(exports, d.name));
  } catch {
    // no exports yet
  }
  const removed = dirs.flatMap((d) => removeStalePartials(d, now));
  // A memory-file lock a crashed workbench process left is marked stale, so no writer waits for it.
  for (const name of MEMORY_FILES) {
    const file = path.join(workspaceDir, name);
    if (releaseDeadOwnLock(file)) removed.push(`${file}.lock`);
  }
  return removed;
}
