// Idempotency keys of mutating API calls (api_idempotency, migration 0080): the request's body hash
// and, once the call finished, its result (JSON), per channel and key.
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface IdempotencyRow {
  body_hash: string;
  /** Null while reserved: the call has not finished (or the server stopped before it did). */
  result: string | null;
}

export function findIdempotencyKey(db: DB, channel: string, key: string, createdAfter: number): IdempotencyRow | undefined {
  return stmt<IdempotencyRow>(
    db,
    'SELECT body_hash, result FROM api_idempotency WHERE channel = ? AND idem_key = ? AND created_at > ?',
  ).get(channel, key, createdAfter);
}

/** Drops expired keys and reserves this one (no result yet). */
export function reserveIdempotencyKey(db: DB, channel: string, key: string, bodyHash: string, now: number, expiredBefore: number): void {
  stmt(db, 'DELETE FROM api_idempotency WHERE created_at <= ?').run(expiredBefore);
  stmt(db, 'INSERT OR REPLACE INTO api_idempotency (channel, idem_key, body_hash, result, created_at) VALUES (?, ?, ?, NULL, ?)').run(
    channel,
    key,
    bodyHash,
    now,
  );
}

export function deleteIdempotencyKey(db: DB, channel: string, key: string): void {
  stmt(db, 'DELETE FROM api_idempotency WHERE channel = ? AND idem_key = ?').run(channel, key);
}

export function storeIdempotentResult(db: DB, channel: string, key: string, resultJson: string): void {
  stmt(db, 'UPDATE api_idempotency SET result = ? WHERE channel = ? AND idem_key = ?').run(resultJson, channel, key);
}
