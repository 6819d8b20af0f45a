import { writeTx, type DB } from './connection';
import { deferIndexes, listDeferredIndexes, restoreDeferredIndex } from './repositories/deferredIndexes';
import { pauseForUncountedWriters } from './writeGate';

// Connection settings for the duration of bulk work (imports, dataset collection and export), nested
// calls sharing one change: the outermost call sets the pragma and restores the previous value.
const held = new WeakMap<DB, Map<string, { depth: number; previous: number }>>();

async function withPragma<T>(db: DB, pragma: string, wanted: (previous: number) => number | null, fn: () => Promise<T>): Promise<T> {
  let settings = held.get(db);
  if (!settings) held.set(db, (settings = new Map()));
  const state = settings.get(pragma);
  if (state) state.depth++;
  else {
    const previous = db.pragma(pragma, { simple: true }) as number;
    settings.set(pragma, { depth: 1, previous });
    const value = wanted(previous);
    if (value !== null && value !== previous) db.pragma(`${pragma} = ${value}`);
  }
  try {
    return await fn();
  } finally {
    const s = settings.get(pragma)!;
    if (--s.depth === 0) {
      settings.delete(pragma);
      if (db.open) db.pragma(`${pragma} = ${s.previous}`);
    }
  }
}

// Bulk work touches every index page it reads or updates. Read through a memory map, each of those
// pages stays resident in the process. With the map off for the duration, reads go through SQLite's
// small page cache and the OS cache instead, so the process's memory stays bounded whatever the
// database size.
export function withoutMmap<T>(db: DB, fn: () => Promise<T>): Promise<T> {
  return withPragma(db, 'mmap_size', () => 0, fn);
}

/** WAL pages between automatic checkpoints during bulk work (256 MiB of 4 KiB pages). */
const BULK_AUTOCHECKPOINT_PAGES = 65_536;

/**
 * Bulk writers commit often (a transaction is bounded so other writers get in), and every commit
 * that passes the default 1,000-page WAL checkpoints: random-key index pages are then copied to the
 * database again and again. A larger WAL for the duration lets a page rewritten by many commits be
 * checkpointed once. A 100,000-decision collection (issue 16) wrote 1,012 MiB of checkpoints with a
 * 64 MiB WAL and 800 MiB with 256 MiB (3.84x to 3.54x its growth); the WAL file keeps that size on
 * disk until the last connection closes.
 */
export function withBulkCheckpoints<T>(db: DB, fn: () => Promise<T>): Promise<T> {
  return withPragma(
    db,
    'wal_autocheckpoint',
    (previous) => (previous > 0 && previous < BULK_AUTOCHECKPOINT_PAGES ? BULK_AUTOCHECKPOINT_PAGES : null),
    fn,
  );
}

/**
 * Main's connection while a job worker writes in bulk: the worker's connection checkpoints its large
 * WAL; main's small commits must not, or each would copy the job's pages on main's thread.
 */
export function withoutAutoCheckpoint<T>(db: DB, fn: () => Promise<T>): Promise<T> {
  return withPragma(db, 'wal_autocheckpoint', () => 0, fn);
}

/**
 * Runs a bulk load with the named indexes set aside (repositories/deferredIndexes.ts: why), then builds
 * them again, whether fn ends, throws or is cancelled. Queries that read them meanwhile scan the table.
 */
export async function withDeferredIndexes<T>(
  db: DB,
  names: readonly string[],
  fn: () => Promise<T>,
  onRebuild?: RebuildProgress,
): Promise<T> {
  if (!names.length) return fn();
  writeTx(db, () => deferIndexes(db, names));
  try {
    return await fn();
  } finally {
    await restoreDeferredIndexes(db, onRebuild);
  }
}

/** True when a bulk load set indexes aside and they have not been built again (a crash, a quit). */
export const hasDeferredIndexes = (db: DB): boolean => listDeferredIndexes(db).length > 0;

/** Told before each index is built (built so far, of total) and once all are. */
export type RebuildProgress = (built: number, total: number) => void;

/**
 * Builds every index a bulk load set aside and did not build again (a crash between the two leaves
 * them recorded), one per transaction so that other writers get in between.
 */
export async function restoreDeferredIndexes(db: DB, onRebuild?: RebuildProgress): Promise<void> {
  const pending = listDeferredIndexes(db);
  for (const [built, index] of pending.entries()) {
    onRebuild?.(built, pending.length);
    writeTx(db, () => restoreDeferredIndex(db, index));
    await pauseForUncountedWriters();
  }
  if (pending.length) onRebuild?.(pending.length, pending.length);
}
