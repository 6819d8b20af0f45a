import type { DB } from '../db/connection';
import { withoutMmap } from '../db/bulk';

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
