import type Database from 'better-sqlite3';
import type { DB } from '../db/connection';
import { AppError } from '../../shared/errors';
import { nowOf, type ServiceContext } from '../context';

// Queries are assembled from fixed fragments only (never from input), so their text is a small,
// finite set: cache the compiled statements per connection.
const cache = new WeakMap<DB, Map<string, Database.Statement>>();

export function prepareCached(db: DB, sql: string): Database.Statement {
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(sql)));
  return s;
}

const DURATION = /^(\d+)\s*(m|h|d|w)$/i;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A moment given as ms since epoch, an ISO 8601 date or date-time, or a duration back from now ("7d", "24h"). */
export function parseMoment(ctx: Pick<ServiceContext, 'now'>, value: number | string | undefined, field: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new AppError('Invalid', `${field}: expected a time, got ${value}`);
    return Math.floor(value);
  }
  const text = String(value).trim();
  if (/^\d{10,}$/.test(text)) return Number(text);
  const rel = DURATION.exec(text);
  if (rel) return nowOf(ctx) - Number(rel[1]) * UNIT_MS[rel[2].toLowerCase()];
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms)) return ms;
  }
  throw new AppError('Invalid', `${field}: "${text}" is not a time (use ISO 8601 like 2026-03-14 or 2026-03-14T09:30:00Z, ms since epoch, or 7d / 24h)`);
}

/** Keyset cursors are opaque to callers: base64url JSON of the last row's sort key. */
export function encodeCursor(key: Array<number | string>): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeCursor(cursor: string | undefined, shape: Array<'number' | 'string'>, field = 'cursor'): Array<number | string> | undefined {
  if (!cursor) return undefined;
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(key) && key.length === shape.length && key.every((v, i) => typeof v === shape[i])) return key as Array<number | string>;
  } catch {
    // falls through to the error below
  }
  throw new AppError('Invalid', `${field}: not a cursor returned by this list`);
}

export function clampLimit(limit: number | undefined, fallback: number, max = 1000): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1) throw new AppError('Invalid', `limit: expected a whole number from 1 to ${max}, got ${limit}`);
  return Math.min(limit, max);
}
