// Keyset paging: the one cursor codec and the one way a page is cut from `limit + 1` rows.
// A cursor is opaque to callers: base64url JSON of the last row's sort key, checked against the key's shape.
import { AppError } from '../../shared/errors';
import type { Page } from '../../shared/paging';

export type CursorKey = Array<number | string>;
export type CursorShape = ReadonlyArray<'number' | 'string'>;

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The sort key a cursor holds, or undefined for no cursor; a cursor of another shape is `Invalid`. */
export function decodeCursor(cursor: string | null | undefined, shape: CursorShape, field = 'cursor'): CursorKey | undefined {
  if (!cursor) return undefined;
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(key) &&
      key.length === shape.length &&
      key.every((v, i) => typeof v === shape[i] && (typeof v !== 'number' || Number.isFinite(v)))
    ) {
      return key as CursorKey;
    }
  } catch {
    // not base64url JSON: the error below says so
  }
  throw new AppError('Invalid', `${field}: not a cursor returned by this list`);
}

/** A page size within 1..max, `fallback` when none was asked for. */
export function clampLimit(limit: number | undefined, fallback: number, max = 1000): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1) throw new AppError('Invalid', `limit: expected a whole number from 1 to ${max}, got ${limit}`);
  return Math.min(limit, max);
}

/** Cuts a page from rows fetched with `LIMIT limit + 1`: the extra row only says another page exists. */
export function pageOf<Row, Item>(rows: Row[], limit: number, keyOf: (row: Row) => CursorKey, toItem: (row: Row) => Item): Page<Item> {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { items: page.map(toItem), nextCursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null };
}
