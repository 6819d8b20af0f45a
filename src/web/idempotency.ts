// Mutating calls may carry an Idempotency-Key: a repeat returns the stored result and does not
// repeat the action (a rollback retried after a dropped connection runs once). Keys and results are
// kept in the workspace database (api_idempotency, migration 0080), so they survive a restart of the
// server; concurrent repeats in one process share the first call's promise. Scoped to channel and key.
import crypto from 'node:crypto';
import type { Result } from '../shared/errors';
import type { DB } from '../core/db/connection';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const TRANSIENT = new Set(['Locked', 'Io', 'RateLimited']);

interface Row {
  body_hash: string;
  result: string | null;
}

const conflict = (message: string): Result<unknown> => ({ ok: false, error: { kind: 'Conflict', message } });

export interface IdempotencyOptions {
  now?: () => number;
  ttlMs?: number;
}

export class IdempotencyStore {
  private readonly inFlight = new Map<string, { bodyHash: string; result: Promise<Result<unknown>> }>();
  private readonly now: () => number;
  private readonly ttlMs: number;

  /** `database` answers the open workspace's connection (it changes when another workspace opens). */
  constructor(private readonly database: () => DB, opts: IdempotencyOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.ttlMs = opts.ttlMs ?? IDEMPOTENCY_TTL_MS;
  }

  async run(channel: string, key: string, body: string, fn: () => Promise<Result<unknown>>): Promise<{ result: Result<unknown>; replayed: boolean }> {
    const id = `${channel}\u0000${key}`;
    const bodyHash = crypto.createHash('sha256').update(body).digest('hex');
    const running = this.inFlight.get(id);
    if (running) {
      if (running.bodyHash !== bodyHash) return { result: conflict('Idempotency-Key was already used with a different request'), replayed: true };
      return { result: await running.result, replayed: true };
    }
    const db = this.database();
    const now = this.now();
    const stored = db
      .prepare('SELECT body_hash, result FROM api_idempotency WHERE channel = ? AND idem_key = ? AND created_at > ?')
      .get(channel, key, now - this.ttlMs) as Row | undefined;
    if (stored) {
      if (stored.body_hash !== bodyHash) return { result: conflict('Idempotency-Key was already used with a different request'), replayed: true };
      if (stored.result === null) {
        // Reserved by a server that stopped before the call finished: it may or may not have happened.
        return { result: conflict('a request with this Idempotency-Key was interrupted; check the outcome before sending it again with a new key'), replayed: true };
      }
      return { result: JSON.parse(stored.result) as Result<unknown>, replayed: true };
    }
    // Reserve the key before acting, so a crash in between never lets a retry run the action twice.
    db.prepare('DELETE FROM api_idempotency WHERE created_at <= ?').run(now - this.ttlMs);
    db.prepare('INSERT OR REPLACE INTO api_idempotency (channel, idem_key, body_hash, result, created_at) VALUES (?, ?, ?, NULL, ?)').run(channel, key, bodyHash, now);
    const result = fn();
    this.inFlight.set(id, { bodyHash, result });
    try {
      const settled = await result;
      this.settle(db, channel, key, settled);
      return { result: settled, replayed: false };
    } finally {
      this.inFlight.delete(id);
    }
  }

  private settle(db: DB, channel: string, key: string, settled: Result<unknown>): void {
    // workspace.open closes the connection the key was reserved in; the new workspace never saw it.
    if (!db.open) return;
    if (!settled.ok && TRANSIENT.has(settled.error.kind)) {
      // A transient failure did nothing: let the client retry it with the same key.
      db.prepare('DELETE FROM api_idempotency WHERE channel = ? AND idem_key = ?').run(channel, key);
    } else {
      db.prepare('UPDATE api_idempotency SET result = ? WHERE channel = ? AND idem_key = ?').run(JSON.stringify(settled), channel, key);
    }
  }
}
