import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DigestSet } from '../../src/core/dataset/digestSet';

const sha = (i: number) => hash('sha256', `record ${i}`, 'buffer');

describe('the digest set an export drops identical records with', () => {
  it('keeps every digest through its growth and answers each a second time as known', () => {
    const set = new DigestSet();
    const n = 100_000;
    for (let i = 0; i < n; i++) expect(set.addBytes(sha(i))).toBe(true);
    expect(set.size).toBe(n);
    for (let i = 0; i < n; i += 7) expect(set.addBytes(sha(i))).toBe(false);
    expect(set.size).toBe(n);
    expect(set.addBytes(sha(n))).toBe(true);
  });

  it('reads the same digest alike in hex and in bytes', () => {
    const set = new DigestSet();
    const d = sha(1);
    expect(set.addHex(d.toString('hex'))).toBe(true);
    expect(set.addBytes(d)).toBe(false);
    expect(set.addHex(sha(2).toString('hex'))).toBe(true);
    // a text that is not a hex digest is hashed: the same text is known, another one is not
    expect([set.addHex('h1'), set.addHex('h1'), set.addHex('h2')]).toEqual([true, false, true]);
  });

  it('tells apart digests that differ in one bit of the 96 it keeps, and keeps the all-zero digest', () => {
    const set = new DigestSet();
    // the same first word: the same slot, so the second goes to the next one
    expect(set.add(0xffffffff, 5, 9)).toBe(true);
    expect(set.add(0xffffffff, 5, 8)).toBe(true);
    expect(set.add(0xffffffff, 4, 9)).toBe(true);
    expect(set.add(0xffffffff, 5, 8)).toBe(false);
    expect(set.add(0, 0, 0)).toBe(true);
    expect(set.add(0, 0, 0)).toBe(false);
    expect(set.add(0, 0, 1)).toBe(true);
    expect(set.size).toBe(5);
  });
});
