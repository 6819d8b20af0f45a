import { describe, expect, it } from 'vitest';
import { clampLimit, decodeCursor, encodeCursor, pageOf } from '../../src/core/db/paging';

describe('cursor codec', () => {
  it('round-trips a sort key of numbers and strings', () => {
    const c = encodeCursor([1773489600000, 'sess-1', 42]);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(c, ['number', 'string', 'number'])).toEqual([1773489600000, 'sess-1', 42]);
  });

  it('gives undefined for no cursor', () => {
    expect(decodeCursor(undefined, ['number'])).toBeUndefined();
    expect(decodeCursor('', ['number'])).toBeUndefined();
    expect(decodeCursor(null, ['number'])).toBeUndefined();
  });

  it('refuses a cursor of another shape or not made by the codec', () => {
    const c = encodeCursor([5, 6]);
    expect(() => decodeCursor(c, ['number'])).toThrow(/cursor: not a cursor returned by this list/);
    expect(() => decodeCursor(c, ['number', 'string'])).toThrow(/not a cursor/);
    expect(() => decodeCursor('12.34', ['number', 'number'])).toThrow(/not a cursor/);
    expect(() => decodeCursor('%%%', ['number'], 'after')).toThrow(/^after: /);
    expect(() => decodeCursor(Buffer.from('[null]').toString('base64url'), ['number'])).toThrow(/not a cursor/);
  });
});

describe('pageOf', () => {
  const rows = [1, 2, 3, 4].map((n) => ({ n }));
  it('cuts limit rows and points the cursor at the last one when more exist', () => {
    const page = pageOf(
      rows,
      3,
      (r) => [r.n],
      (r) => r.n * 10,
    );
    expect(page.items).toEqual([10, 20, 30]);
    expect(decodeCursor(page.nextCursor, ['number'])).toEqual([3]);
  });
  it('has no cursor on the last page', () => {
    expect(
      pageOf(
        rows,
        4,
        (r) => [r.n],
        (r) => r.n,
      ),
    ).toEqual({ items: [1, 2, 3, 4], nextCursor: null });
    expect(
      pageOf(
        [],
        4,
        () => [0],
        (r) => r,
      ),
    ).toEqual({ items: [], nextCursor: null });
  });
});

describe('clampLimit', () => {
  it('defaults, caps and refuses', () => {
    expect(clampLimit(undefined, 50)).toBe(50);
    expect(clampLimit(5000, 50, 1000)).toBe(1000);
    expect(() => clampLimit(0, 50)).toThrow(/limit: expected a whole number/);
    expect(() => clampLimit(2.5, 50)).toThrow(/limit/);
  });
});
