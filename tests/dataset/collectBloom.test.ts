// The Bloom filter dedupe asks before it queries the index (issue 16): it must never say "absent" for
// a key it was given, and should say it for most keys it was not; saturated, it always says "maybe".
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { BloomFilter, bandKeyHashes, hexHashes } from '../../src/core/dataset/collect/bloom';

const hex = (i: number) => createHash('sha256').update(String(i)).digest('hex');

describe('dedupe Bloom filter', () => {
  it('keeps every added key, rejects most others, and saturated answers maybe', () => {
    const f = new BloomFilter(10_000);
    for (let i = 0; i < 10_000; i++) f.add(...hexHashes(hex(i)));
    for (let i = 0; i < 10_000; i++) expect(f.mayContain(...hexHashes(hex(i)))).toBe(true);
    let falsePositives = 0;
    for (let i = 10_000; i < 20_000; i++) if (f.mayContain(...hexHashes(hex(i)))) falsePositives++;
    expect(falsePositives).toBeLessThan(500);

    const bands = new BloomFilter(1000);
    const keys = Array.from({ length: 1000 }, (_, i) => (i % 16) * 2 ** 32 + ((i * 2654435761) >>> 0));
    for (const k of keys) bands.add(...bandKeyHashes(k));
    for (const k of keys) expect(bands.mayContain(...bandKeyHashes(k))).toBe(true);

    // a size that is not a power of two (the filter is sized to its items, not rounded up): the false
    // positive rate stays near the 1.7% that 10 bits and 3 probes give
    const odd = new BloomFilter(300_001);
    for (let i = 0; i < 300_001; i++) odd.add(...bandKeyHashes((i % 16) * 2 ** 32 + ((i * 2654435761) >>> 0)));
    let oddFalse = 0;
    for (let i = 0; i < 100_000; i++) if (odd.mayContain(...hexHashes(hex(i)))) oddFalse++;
    expect(oddFalse).toBeGreaterThan(500);
    expect(oddFalse).toBeLessThan(2_500);

    const saturated = new BloomFilter(0);
    expect(saturated.mayContain(...hexHashes(hex(1)))).toBe(false);
    saturated.saturate();
    for (let i = 0; i < 100; i++) expect(saturated.mayContain(...hexHashes(hex(i)))).toBe(true);
  });

  it('caps its bit array at 32 MiB, however many items it is sized for', () => {
    const before = process.memoryUsage().arrayBuffers;
    const huge = new BloomFilter(3_000_000 * 16); // the band filter of 1,000,000 decisions: 60 MB uncapped
    const grew = process.memoryUsage().arrayBuffers - before;
    expect(Math.abs(grew - 2 ** 25)).toBeLessThan(2 ** 22); // 32 MiB, give or take buffers freed meanwhile
    for (let i = 0; i < 1000; i++) huge.add(...hexHashes(hex(i)));
    for (let i = 0; i < 1000; i++) expect(huge.mayContain(...hexHashes(hex(i)))).toBe(true);
  });
});
