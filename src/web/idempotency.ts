// Mutating calls may carry an Idempotency-Key: a repeat returns the stored result and does not
// repeat the action (a rollback retried after a dropped connection runs once). Keys and results are
// kept in the workspace database (api_idempotency, migration 0080), so they survive a restart of the
// server; concurrent repeats in one process share the first call's promise. Scoped to channel and key.
import crypto from 'node:crypto';
import type { Result } from '../shared/errors';
import type { DB } from '../core/db/connection';
import { holdWriteGate } from '../core/db/writeGate';
import {
  deleteIdempotencyKey,
  findIdempotencyKey,
  reserveIdempotencyKey,
  storeIdempotentResult,
} from '../core/db/repositories/idempotency';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const TRANSIENT = new Set(['Locked', 'Io', 'RateLimited']);

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
  constructor(
    private readonly database: () => DB,
    opts: IdempotencyOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.ttlMs = opts.ttlMs ?? IDEMPOTENCY_TTL_MS;
  }

  async run(
    channel: string,
    key: string,
    body: string,
    fn: () => Promise<Result<unknown>>,
  ): Promise<{ result: Result<unknown>; replayed: boolean }> {
    const id = `${channel}\u0000${key}`;
    const bodyHash = crypto.createHash('sha256').update(body).digest('hex');
    const running = this.inFlight.get(id);
    if (running) {
      if (running.bodyHash !== bodyHash)
        return { result: conflict('Idempotency-Key was already used with a different request'), replayed: true };
      return { result: await running.result, replayed: true };
    }
    const db = this.database();
    const now = this.now();
    const stored = findIdempotencyKey(db, channel, key, now - this.ttlMs);
    if (stored) {
      if (stored.body_hash !== bodyHash)
        return { result: conflict('Idempotency-Key was already used with a different request'), replayed: true };
      if (stored.result === null) {
        // Reserved by a server that stopped before the call finished: it may or may not have happened.
        return {
          result: conflict('a request with this Idempotency-Key was interrupted; check the outcome before sending it again with a new key'),
          replayed: true,
        };
      }
      return { result: JSON.parse(stored.result) as Result<unknown>, replayed: true };
    }
    // Reserve the key before acting, so a crash in between never lets a retry run the action twice.
    // Both writes wait for a job's transaction as the call itself does (runner.ts, writeAfterJobTransactions).
    const result = holdWriteGate(async () => reserveIdempotencyKey(db, channel, key, bodyHash, now, now - this.ttlMs)).then(fn);
    this.inFlight.set(id, { bodyHash, result });
    try {
      const settled = await result;
      await holdWriteGate(async () => this.settle(db, channel, key, settled));
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
      deleteIdempotencyKey(db, channel, key);
    } else {
      storeIdempotentResult(db, channel, key, JSON.stringify(settled));
    }
  }
}
