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
