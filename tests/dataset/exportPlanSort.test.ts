// The plan orders samples (balance) and groups (the split) by seeded keys of ID_KEY_WORDS words. It packs
// each value with its key's first bits into a double and sorts those natively (issue 16): the order must be
// the one a comparison of whole keys gives, equal keys by value, whatever the values' size.
import { describe, expect, it } from 'vitest';
import { sortByKeys } from '../../src/core/dataset/exportPlan';
import { ID_KEY_WORDS } from '../../src/core/db/repositories/exportSamples';

/** A small seeded generator, so a failure repeats. */
function words(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

function byWholeKeys(values: number[], keys: Uint32Array, keyRow: (v: number) => number): number[] {
  const word = (v: number, w: number) => keys[keyRow(v) * ID_KEY_WORDS + w]!;
  return [...values].sort((a, b) => {
    for (let w = 0; w < ID_KEY_WORDS; w++) if (word(a, w) !== word(b, w)) return word(a, w) < word(b, w) ? -1 : 1;
    return a - b;
  });
}

describe('sortByKeys', () => {
  it('orders values as whole keys do, equal keys by value, with ties in the first word and in all words', () => {
    for (const [seed, rows, largest] of [
      [1, 2_000, 1_999],
      [2, 3_000, 5_000_000], // values past 2^21: fewer of the key's bits fit the double
      [3, 500, 2 ** 31 - 1],
    ] as const) {
      const next = words(seed);
      const keys = new Uint32Array(rows * ID_KEY_WORDS).map(() => next());
      for (let r = 0; r < rows; r += 7) keys[r * ID_KEY_WORDS] = keys[0]!; // first words tie, the rest differ
      for (let r = 3; r < rows; r += 11) keys.copyWithin(r * ID_KEY_WORDS, 3 * ID_KEY_WORDS, 4 * ID_KEY_WORDS); // whole keys tie
      for (let r = 5; r < rows; r += 13) keys[r * ID_KEY_WORDS] = 0xffffffff; // the largest first word
      // distinct values, each naming a key row; the largest value is among them
      const values = Array.from(new Set([largest, ...Array.from({ length: rows }, () => next() % (largest + 1))]));
      const keyRow = (v: number) => v % rows;
      const sorted = sortByKeys(Int32Array.from(values), keys, keyRow);
      expect(Array.from(sorted)).toEqual(byWholeKeys(values, keys, keyRow));
    }
  });

  it('sorts a subarray in place and leaves the rest', () => {
    const keys = Uint32Array.from([3, 0, 0, 1, 0, 0, 2, 0, 0, 1, 0, 0]);
    const values = Int32Array.from([9, 0, 1, 2, 3, 9]);
    sortByKeys(values.subarray(1, 5), keys, (v) => v);
    expect(Array.from(values)).toEqual([9, 1, 3, 2, 0, 9]);
  });
});
