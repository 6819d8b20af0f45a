import type { DB } from '../db/connection';
import { findLifecycleStateValue, upsertLifecycleState } from '../db/repositories/lifecycleState';

/** Small durable key/value state of this area (migration 0070), JSON-encoded. */
export function getState<T>(db: DB, key: string): T | undefined {
  const v = findLifecycleStateValue(db, key);
  return v === undefined ? undefined : (JSON.parse(v) as T);
}

export function setState(db: DB, key: string, value: unknown, at: number): void {
  upsertLifecycleState(db, key, JSON.stringify(value), at);
}

/** A clock that can be replaced in tests: time and timers come from the same place. */
export interface Clock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    // Node timers overflow above ~24.8 days; re-arm in steps so a long wait still fires on time.
    const MAX = 2 ** 31 - 1;
    const box: { t?: NodeJS.Timeout } = {};
    const arm = (left: number) => {
      box.t = setTimeout(() => (left > MAX ? arm(left - MAX) : fn()), Math.min(left, MAX));
      box.t.unref?.();
    };
    arm(Math.max(0, ms));
    return box;
  },
  clearTimer: (h) => clearTimeout((h as { t?: NodeJS.Timeout }).t),
};
