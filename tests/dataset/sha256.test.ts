import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Into } from '../../src/core/dataset/collect/sha256';

function randomText(seed: number): string {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) & 0x7fffffff);
  const n = next() % 300; // one to six blocks, and the padding edges 55, 56, 63, 64 between
  let s = '';
  for (let i = 0; i < n; i++) {
    const r = next() % 10;
    // mostly ASCII (source keys), then two- and three-byte UTF-8, surrogate pairs and lone surrogates
    if (r < 6) s += String.fromCharCode(0x20 + (next() % 95));
    else if (r < 7) s += String.fromCharCode(0x80 + (next() % 0x780));
    else if (r < 8) s += String.fromCharCode(0x800 + (next() % 0xd000));
    else if (r < 9) s += String.fromCodePoint(0x10000 + (next() % 0xfffff));
    else s += String.fromCharCode(0xd800 + (next() % 0x800));
  }
  return s;
}

describe('sha256Into', () => {
  it("gives node:crypto's SHA-256 digest", () => {
    const out = new Uint8Array(32);
    const texts = ['', 'abc', 'pos:nowrite:01KDVDNAZ92C1YXXVMCH4NC0KV', 'a'.repeat(55), 'a'.repeat(56), 'b'.repeat(64), 'c'.repeat(1000)];
    for (let seed = 1; seed <= 5000; seed++) texts.push(randomText(seed));
    for (const t of texts) expect(Buffer.from(sha256Into(t, out)).toString('hex'), JSON.stringify(t)).toBe(hash('sha256', t, 'hex'));
  });
});
