// The records an export has written, as digests, to drop a later record identical to one of them. A Set of
// base64 SHA-256 strings took about 90 bytes a record, and an export remembers every record it writes: at
// 1,000,000 decisions (697,000 alpaca records) that was 65 MB of the heap, and it grew to the end. Here a
// record takes 12 bytes of one typed array at most three quarters full.

import { hash } from 'node:crypto';

const HEX_DIGEST = /^[0-9a-fA-F]{24}/;

/** 32-bit words of a digest kept: 96 bits, so that two different records of an export share one with a
 * probability of about n² / 2^97 (3e-17 for 2,000,000 records). */
const WORDS = 3;
const FIRST_SLOTS = 1 << 14;

export class DigestSet {
  private table = new Uint32Array(FIRST_SLOTS * WORDS);
  private mask = FIRST_SLOTS - 1;
  private count = 0;
  /** The all-zero digest: an empty slot holds zeros, so it is kept apart. */
  private zero = false;

  get size(): number {
    return this.count;
  }

  /** Adds the digest whose first 96 bits are a, b, c (unsigned); false when it was there already. */
  add(a: number, b: number, c: number): boolean {
    if (a === 0 && b === 0 && c === 0) {
      if (this.zero) return false;
      this.zero = true;
      this.count++;
      return true;
    }
    if ((this.count + 1) * 4 > (this.mask + 1) * 3) this.grow();
    return this.put(a, b, c);
  }

  /** Adds the first 96 bits of a SHA-256 (or any digest of at least 12 bytes). */
  addBytes(d: Buffer): boolean {
    return this.add(d.readUInt32BE(0), d.readUInt32BE(4), d.readUInt32BE(8));
  }

  /** Adds the first 96 bits of a digest written in hex; any other text is hashed first (SHA-256). */
  addHex(hex: string): boolean {
    if (!HEX_DIGEST.test(hex)) return this.addBytes(hash('sha256', hex, 'buffer'));
    return this.add(parseInt(hex.slice(0, 8), 16), parseInt(hex.slice(8, 16), 16), parseInt(hex.slice(16, 24), 16));
  }

  private put(a: number, b: number, c: number): boolean {
    const t = this.table;
    // the digest's bits are uniform already: its first word picks the slot; linear probing from there
    for (let i = a & this.mask; ; i = (i + 1) & this.mask) {
      const o = i * WORDS;
      const x = t[o]!; // o < length: i <= mask
      const y = t[o + 1]!;
      const z = t[o + 2]!;
      if (x === 0 && y === 0 && z === 0) {
        t[o] = a;
        t[o + 1] = b;
        t[o + 2] = c;
        this.count++;
        return true;
      }
      if (x === a && y === b && z === c) return false;
    }
  }

  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    this.mask = this.mask * 2 + 1;
    this.count = this.zero ? 1 : 0;
    for (let o = 0; o < old.length; o += WORDS) {
      const a = old[o]!; // o < length
      const b = old[o + 1]!;
      const c = old[o + 2]!;
      if (a !== 0 || b !== 0 || c !== 0) this.put(a, b, c);
    }
  }
}
