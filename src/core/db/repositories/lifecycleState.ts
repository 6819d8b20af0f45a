// The lifecycle area's small durable key/value state (lifecycle_state, migration 0070); values are JSON text.
import type { DB } from '../connection';
import { stmt } from '../statements';

export function findLifecycleStateValue(db: DB, key: string): string | undefined {
  return stmt(db, 'SELECT value FROM lifecycle_state WHERE key = ?').pluck().get(key) as string | undefined;
}

export function upsertLifecycleState(db: DB, key: string, valueJson: string, at: number): void {
  stmt(
    db,
    'INSERT INTO lifecycle_state (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
  ).run(key, valueJson, at);
}
