import { describe, expect, it } from 'vitest';
import { StringIds } from '../../src/core/parquet/stringIds';

describe('StringIds', () => {
  it('numbers equal text once, whether it is the same string, an equal copy, or was pushed out of its slot', () => {
    const ids = new StringIds();
    const a = `answer ${'x'.repeat(60)}`;
    const copy = ['answer ', 'x'.repeat(60)].join('');
    const sameLength = `other! ${'y'.repeat(60)}`; // the same length as a: the same slot
    expect(ids.id(a)).toBe(0);
    expect(ids.id(a)).toBe(0);
    expect(ids.id(copy)).toBe(0);
    expect(ids.id(sameLength)).toBe(1);
    expect(ids.id(a)).toBe(0);
    expect(ids.id('')).toBe(2);
    expect(ids.id('')).toBe(2);
    expect(ids.id('x'.repeat(64))).toBe(3); // length 64: slot 0, beside ''
    expect(ids.id('')).toBe(2);
    expect(ids.size).toBe(4);
    ids.clear();
    expect(ids.size).toBe(0);
    expect(ids.id(sameLength)).toBe(0);
  });
});
