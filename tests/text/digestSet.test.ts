import { hash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fastUlid } from '../../src/core/recorder/recorder';
import { DigestSet, IdNumbering, stringDigest } from '../../src/core/text/digestSet';

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

describe('the numbering an export plan gives cluster ids', () => {
  it('gives each distinct id the next number in the order first seen, through the table growing', () => {
    const ids = new IdNumbering();
    const n = 60_000;
    for (let i = 0; i < n; i++) expect(ids.numberOf(`cluster-${i}`)).toBe(i);
    for (let i = 0; i < n; i += 11) expect(ids.numberOf(`cluster-${i}`)).toBe(i);
    expect(ids.size).toBe(n);
    expect([ids.numberOf(''), ids.numberOf(''), ids.numberOf('\u0000')]).toEqual([n, n, n + 1]);
  });

  it('digests ids of the shapes a workspace makes without a collision', () => {
    const seen = new DigestSet();
    const d = new Uint32Array(3);
    const add = (id: string) => (stringDigest(id, d), seen.add(d[0]!, d[1]!, d[2]!));
    const shapes = [
      (i: number) => fastUlid(1_767_225_600_000 + (i >> 4)),
      (i: number) => `turn-${i}`,
      (i: number) => randomUUID() + String(i % 10),
      // one place apart, and lengths that differ by a character
      (i: number) => `01KDVDNAZ9XVJKZJWMT82JJS${String.fromCharCode(48 + (i % 43), 48 + (Math.floor(i / 43) % 43))}${'Z'.repeat(i % 3)}`,
    ];
    let added = 0;
    for (const shape of shapes) for (let i = 0; i < 250_000; i++) added += add(shape(i)) ? 1 : 0;
    // the fourth shape repeats after 43 * 43 * 3 ids
    expect(added).toBe(3 * 250_000 + 43 * 43 * 3);
  });
});
