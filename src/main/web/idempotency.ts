// Mutating calls may carry an Idempotency-Key: a repeat returns the stored result and does not
// repeat the action (a rollback retried after a dropped connection runs once). Concurrent repeats
// share the first call's promise. Keys are scoped to the session token and the channel.
import crypto from 'node:crypto';
import type { Result } from '../../shared/errors';

const MAX_ENTRIES = 5000;
const TTL_MS = 24 * 60 * 60 * 1000;
const TRANSIENT = new Set(['Locked', 'Io', 'RateLimited']);

interface Entry {
  bodyHash: string;
  at: number;
  result: Promise<Result<unknown>>;
}

export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  async run(scope: string, key: string, body: string, fn: () => Promise<Result<unknown>>): Promise<{ result: Result<unknown>; replayed: boolean }> {
    const id = `${scope}\u0000${key}`;
    const bodyHash = crypto.createHash('sha256').update(body).digest('hex');
    const now = Date.now();
    const existing = this.entries.get(id);
    if (existing && now - existing.at < TTL_MS) {
      if (existing.bodyHash !== bodyHash) {
        return { result: { ok: false, error: { kind: 'Conflict', message: 'Idempotency-Key was already used with a different request' } }, replayed: true };
      }
      return { result: await existing.result, replayed: true };
    }
    const result = fn();
    this.entries.set(id, { bodyHash, at: now, result });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    const settled = await result;
    // A transient failure did nothing: let the client retry it with the same key.
    if (!settled.ok && TRANSIENT.has(settled.error.kind)) this.entries.delete(id);
    return { result: settled, replayed: false };
  }
}
