// A Bloom filter over 32-bit hashes: "certainly absent" answers let dedupe skip most index lookups
// (a new sample's fingerprint and band keys are usually new), at one bit array per run.

/** Bits per expected item: 10 with 3 probes gives about 1.7% false positives. */
const BITS_PER_ITEM = 10;
const PROBES = 3;

export class BloomFilter {
  private readonly bits: Uint32Array;
  private readonly mask: number;

  constructor(expectedItems: number) {
    let size = 1 << 16;
    while (size < expectedItems * BITS_PER_ITEM && size < 2 ** 31) size *= 2;
    this.bits = new Uint32Array(size / 32);
    this.mask = size - 1;
  }

  /** h1, h2: two independent 32-bit hashes of the item (double hashing gives the probes). */
  add(h1: number, h2: number): void {
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + Math.imul(i, h2 | 1)) & this.mask;
      this.bits[bit >>> 5]! |= 1 << (bit & 31); // bit <= mask: inside the table
    }
  }

  /** Every answer "maybe": for a run too small to pay for seeding the filter from the store. */
  saturate(): void {
    this.bits.fill(0xffffffff);
  }

  mayContain(h1: number, h2: number): boolean {
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + Math.imul(i, h2 | 1)) & this.mask;
      if (!(this.bits[bit >>> 5]! & (1 << (bit & 31)))) return false; // bit <= mask: inside the table
    }
    return true;
  }
}

/** Two 32-bit hashes of a hex digest (already uniformly random). */
export const hexHashes = (hex: string): [number, number] => [parseInt(hex.slice(0, 8), 16), parseInt(hex.slice(8, 16), 16)];

/** Two 32-bit hashes of a band key (band index in the high bits, a 32-bit hash below). */
export function bandKeyHashes(key: number): [number, number] {
  const low = key >>> 0;
  const high = Math.floor(key / 4_294_967_296);
  return [low, Math.imul(low ^ (high + 1), 0x9e3779b1) >>> 0];
}
