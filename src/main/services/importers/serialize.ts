import type { DB } from '../../db/connection';

const running = new Map<string, Promise<unknown>>();

/**
 * Runs imports of the same kind into the same database one after another. The live watcher and
 * a curator's manual import may start together; both would read the same cursor and redo the same
 * lines (harmless for rows, ids are derived from the source, but wasted work and racing state).
 */
export function serialized<T>(db: DB, importer: string, fn: () => Promise<T>): Promise<T> {
  const key = `${db.name}\u0000${importer}`;
  const previous = running.get(key) ?? Promise.resolve();
  const run = () => withoutMmap(db, fn);
  const next = previous.then(run, run);
  const settled = next.catch(() => undefined);
  running.set(key, settled);
  void settled.then(() => {
    if (running.get(key) === settled) running.delete(key);
  });
  return next;
}

// A bulk import touches every index page it updates; read through a memory map, each of those pages
// stays resident in the process. With the map off for the import, reads go through SQLite's small page
// cache and the OS cache instead, so the importer's memory stays bounded whatever the database size.
const unmapped = new WeakMap<DB, { depth: number; previous: number }>();

async function withoutMmap<T>(db: DB, fn: () => Promise<T>): Promise<T> {
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
