import type { DB } from './connection';

// Bulk work (imports, dataset collection and export) touches every index page it reads or updates. Read
// through a memory map, each of those pages stays resident in the process. With the map off for the
// duration, reads go through SQLite's small page cache and the OS cache instead, so the process's memory
// stays bounded whatever the database size.
const unmapped = new WeakMap<DB, { depth: number; previous: number }>();

export async function withoutMmap<T>(db: DB, fn: () => Promise<T>): Promise<T> {
  const held = unmapped.get(db);
  if (held) held.depth++;
  else {
    unmapped.set(db, { depth: 1, previous: db.pragma('mmap_size', { simple: true }) as number });
    db.pragma('mmap_size = 0');
  }
  try {
    return await fn();
  } finally {
    const state = unmapped.get(db)!;
    if (--state.depth === 0) {
      unmapped.delete(db);
      if (db.open) db.pragma(`mmap_size = ${state.previous}`);
    }
  }
}

/** WAL pages between automatic checkpoints during bulk work (64 MiB of 4 KiB pages). */
const BULK_AUTOCHECKPOINT_PAGES = 16_384;
const checkpointing = new WeakMap<DB, { depth: number; previous: number }>();

/**
 * Bulk writers commit often (a transaction is bounded by time so other writers get in), and every
 * commit that passes the default 1,000-page WAL checkpoints: random-key index pages are then copied
 * to the database again and again. A larger WAL for the duration lets a page rewritten by many
 * commits be checkpointed once; the setting is restored at the end.
 */
export async function withBulkCheckpoints<T>(db: DB, fn: () => Promise<T>): Promise<T> {
  const held = checkpointing.get(db);
  if (held) held.depth++;
  else {
    const previous = db.pragma('wal_autocheckpoint', { simple: true }) as number;
    checkpointing.set(db, { depth: 1, previous });
    if (previous > 0 && previous < BULK_AUTOCHECKPOINT_PAGES) db.pragma(`wal_autocheckpoint = ${BULK_AUTOCHECKPOINT_PAGES}`);
  }
  try {
    return await fn();
  } finally {
    const state = checkpointing.get(db)!;
    if (--state.depth === 0) {
      checkpointing.delete(db);
      if (db.open) db.pragma(`wal_autocheckpoint = ${state.previous}`);
    }
  }
}
