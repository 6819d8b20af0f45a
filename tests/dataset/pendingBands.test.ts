// PendingBands holds a run's unwritten band rows in typed arrays; it must answer exactly as the Map of id
// lists it replaced: the same ids per key, every row once when drained, in ascending key order.
import { describe, expect, it } from 'vitest';
import { PendingBands } from '../../src/core/dataset/collect/pendingBands';

/** A deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Sixteen band keys as bandKeys makes them (band index in the high bits), from a small key space so keys repeat. */
function keysOf(next: () => number, space: number): number[] {
  return Array.from({ length: 16 }, (_, b) => b * 2 ** 32 + Math.floor(next() * space));
}

describe('PendingBands', () => {
  it('answers like a Map of id lists through growth, and gives every row once in key order', () => {
    const next = random(7);
    const pending = new PendingBands();
    const reference = new Map<number, string[]>();
    for (let leader = 0; leader < 20_000; leader++) {
      const id = `leader-${leader}`;
      const keys = keysOf(next, 3_000); // about 100 leaders per key and band: long chains
      pending.add(id, keys);
      for (const k of keys) reference.get(k)?.push(id) ?? reference.set(k, [id]);
    }
    expect(pending.rows).toBe(20_000 * 16);
    const differing = [...reference].filter(([k, list]) => pending.idsOf(k)?.sort().join() !== [...list].sort().join());
    expect(differing).toEqual([]);
    expect(pending.idsOf(17 * 2 ** 32 + 5)).toBeUndefined();

    const keys: number[] = [];
    const ids: string[] = [];
    for (const k of pending.sortedKeys()) pending.rowsOf(k, keys, ids);
    pending.clear();
    expect(keys.length).toBe(20_000 * 16);
    expect(keys.every((k, i) => i === 0 || k >= keys[i - 1]!)).toBe(true);
    const drained = new Map<number, string[]>();
    keys.forEach((k, i) => drained.get(k)?.push(ids[i]!) ?? drained.set(k, [ids[i]!]));
    expect(drained.size).toBe(reference.size);
    expect([...reference].filter(([k, list]) => drained.get(k)?.sort().join() !== [...list].sort().join())).toEqual([]);

    // drained: empty, and usable again
    expect(pending.rows).toBe(0);
    expect(pending.idsOf(keys[0]!)).toBeUndefined();
    pending.add('again', [keys[0]!]);
    expect(pending.idsOf(keys[0]!)).toEqual(['again']);
  });

  it('keeps distinct keys apart when their low 32 bits are equal (another band)', () => {
    const pending = new PendingBands();
    pending.add('a', [0 * 2 ** 32 + 42, 1 * 2 ** 32 + 42]);
    pending.add('b', [1 * 2 ** 32 + 42, 15 * 2 ** 32 + 42]);
    expect(pending.idsOf(42)).toEqual(['a']);
    expect(pending.idsOf(2 ** 32 + 42)?.sort()).toEqual(['a', 'b']);
    expect(pending.idsOf(15 * 2 ** 32 + 42)).toEqual(['b']);
    expect([...pending.sortedKeys()]).toEqual([42, 2 ** 32 + 42, 15 * 2 ** 32 + 42]);
  });

  it('answers the same with a small capacity that grows, and keeps its arrays through clear', () => {
    const next = random(11);
    const pending = new PendingBands(1_000); // far below the rows: grows several times
    expect(pending.idsOf(5)).toBeUndefined(); // nothing allocated yet
    for (let round = 0; round < 3; round++) {
      const reference = new Map<number, string[]>();
      for (let leader = 0; leader < 2_000; leader++) {
        const id = `r${round}-${leader}`;
        const keys = keysOf(next, 500);
        pending.add(id, keys);
        for (const k of keys) reference.get(k)?.push(id) ?? reference.set(k, [id]);
      }
      expect([...reference].filter(([k, list]) => pending.idsOf(k)?.sort().join() !== [...list].sort().join())).toEqual([]);
      expect([...pending.sortedKeys()]).toEqual([...reference.keys()].sort((a, b) => a - b));
      pending.clear();
      expect([...reference.keys()].some((k) => pending.idsOf(k))).toBe(false);
    }
  });

  it('refuses a key whose band part does not fit', () => {
    expect(() => new PendingBands().add('a', [2 ** 48])).toThrow(RangeError);
  });
});
