// Dedupe's exact Jaccard by dense shingle ids (issue 16) must be the Jaccard of the sorted-code merge it
// replaced, for English, Chinese, short and empty units, and across a dictionary that starts over.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ShingleIds, jaccardOfShingles, minhash, normalizeText, unitShingles } from '../../src/core/dataset/similarity';

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

const WORDS = ['budget', 'is', '50k', '60k', 'the', 'user', 'prefers', 'tea', 'coffee', '用户', '喜欢', '咖啡', '预算', 'é', 'x', 'ab'];

function randomUnit(next: () => number): string {
  const n = Math.floor(next() * 12);
  return normalizeText(Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' '));
}

describe('ShingleIds', () => {
  it('gives the same Jaccard as merging sorted shingle codes, pair by pair', () => {
    const next = rng(7);
    const units = Array.from({ length: 300 }, () => randomUnit(next));
    units.push('', 'a', 'ab', 'abc', '预算');
    for (const limit of [1_000_000, 40]) {
      // limit 40: the dictionary starts over many times, and leaders' ids of old generations are rebuilt
      const ids = new ShingleIds(limit);
      const cached = new Map<string, { gen: number; ids: Int32Array }>();
      for (const mine of units.slice(0, 60)) {
        ids.mark(mine);
        for (const other of units) {
          let c = cached.get(other);
          if (!c || c.gen !== ids.generation) cached.set(other, (c = { gen: ids.generation, ids: ids.idsOf(other) }));
          expect(ids.jaccardWithMarked(c.ids)).toBe(jaccardOfShingles(unitShingles(mine), unitShingles(other)));
        }
      }
      if (limit === 40) expect(ids.generation).toBeGreaterThan(0);
    }
  });

  it('gives a unit each distinct shingle once, repeated shingles included', () => {
    const ids = new ShingleIds();
    for (const unit of ['aaaaaaaa', 'abcabcabcabc', 'budget budget budget 50k', '预算预算预算', 'ab', '']) {
      const got = ids.idsOf(unit);
      expect(new Set(got).size).toBe(got.length);
      expect(got.length).toBe(unitShingles(unit).length);
    }
  });
});

describe('minhash', () => {
  it('gives the signatures stored by earlier versions, so stored band rows still match', () => {
    // stored leaders keep their signature and band rows: a signature that changed would hide them from
    // every later sample (the digest is of the signatures the one-permutation-per-pass loop gave)
    const texts = ['', 'a', 'ab', 'abc', 'The user prefers tea over coffee, budget 50k', '用户喜欢喝咖啡，预算五万', 'x'.repeat(5000)];
    const h = createHash('sha256');
    for (const t of texts) h.update(Buffer.from(minhash(t).buffer));
    expect(h.digest('hex')).toBe('54c41bf83b83207c11f024285e0c415870fbde452f179d294a687d6c3fe34dba');
  });
});
