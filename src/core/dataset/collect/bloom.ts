// A Bloom filter over 32-bit hashes: "certainly absent" answers let dedupe skip most index lookups
// (a new sample's fingerprint and band keys are usually new), at one bit array per run.

/** Bits per expected item: 10 with 3 probes gives about 1.7% false positives. */
const BITS_PER_ITEM = 10;
const PROBES = 3;

/** Smallest filter, in bits. */
const MIN_BITS = 1 << 16;
/**
 * Largest filter, in bits (32 MiB): a cap on resident memory. Sized to its items, the band filter of a
 * run of 1,000,000 decisions took 60 MB (3,000,000 samples the run may add, 16 keys each). Capped, it
 * holds the 30 million keys such a run adds at 9 bits each: 2.4% false "maybe" answers by the run's
 * end instead of 0.5%, each one an index lookup.
 */
const MAX_BITS = 2 ** 28;

/**
 * The bit for probe i of an item. The size is not a power of two (rounding up doubled the band filter
 * of a large run: 32 MB at 300,000 decisions, a tenth of the collector's resident memory), so a probe's
 * 32-bit hash is mapped onto it by multiplying (Lemire's range reduction) rather than masked.
 */
const bitOf = (h1: number, h2: number, i: number, size: number) => Math.floor((((h1 + Math.imul(i, h2 | 1)) >>> 0) * size) / 4_294_967_296);

export class BloomFilter {
  private readonly bits: Uint32Array;
  private readonly size: number;

  constructor(expectedItems: number) {
    const words = Math.ceil(Math.min(MAX_BITS, Math.max(MIN_BITS, expectedItems * BITS_PER_ITEM)) / 32);
    this.bits = new Uint32Array(words);
    this.size = words * 32;
  }

  /** h1, h2: two independent 32-bit hashes of the item (double hashing gives the probes). */
  add(h1: number, h2: number): void {
    for (let i = 0; i < PROBES; i++) {
      const bit = bitOf(h1, h2, i, this.size);
      this.bits[bit >>> 5]! |= 1 << (bit & 31); // bit < size: inside the table
    }
  }

  /** Every answer "maybe": for a run too small to pay for seeding the filter from the store. */
  saturate(): void {
    this.bits.fill(0xffffffff);
  }

  mayContain(h1: number, h2: number): boolean {
    for (let i = 0; i < PROBES; i++) {
      const bit = bitOf(h1, h2, i, this.size);
      if (!(this.bits[bit >>> 5]! & (1 << (bit & 31)))) return false; // bit < size: inside the table
    }
    return true;
  }
}

/** Two 32-bit hashes of a hex digest (already uniformly random). */
export const hexHashes = (hex: string): [number, number] => [parseInt(hex.slice(0, 8), 16), parseInt(hex.slice(8, 16), 16)];

/** A 32-bit hash of a whole band key (band index in the high bits, a 32-bit hash below; a safe integer). */
export function bandKeyMix(key: number): number {
  return Math.imul((key >>> 0) ^ (Math.floor(key / 4_294_967_296) + 1), 0x9e3779b1) >>> 0;
}

/** Two 32-bit hashes of a band key: its low 32 bits (already a hash) and bandKeyMix. */
export const bandKeyHashes = (key: number): [number, number] => [key >>> 0, bandKeyMix(key)];
