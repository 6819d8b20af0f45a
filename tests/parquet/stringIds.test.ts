import { describe, expect, it } from 'vitest';
import { StringIds } from '../../src/core/parquet/stringIds';

describe('StringIds', () => {
  it('numbers equal text once, whether it is the same string, an equal copy, or was pushed out of its slot', () => {
    const ids = new StringIds();
    const a = `answer ${'x'.repeat(60)}`;
    const copy = ['answer ', 'x'.repeat(60)].join('');
    const sameSlot = `a${'y'.repeat(a.length - 1)}`; // the same length and first character as a: the same slot
    expect(ids.id(a)).toBe(0);
    expect(ids.id(a)).toBe(0);
    expect(ids.id(copy)).toBe(0);
    expect(ids.id(sameSlot)).toBe(1);
    expect(ids.id(a)).toBe(0);
    expect(ids.id('')).toBe(2);
    expect(ids.id('')).toBe(2);
    expect(ids.id('x'.repeat(64))).toBe(3);
    expect(ids.id('')).toBe(2);
    expect(ids.size).toBe(4);
    ids.clear();
    expect(ids.size).toBe(0);
    expect(ids.id(sameSlot)).toBe(0);
  });
});
