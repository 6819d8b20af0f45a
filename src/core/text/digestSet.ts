// 96-bit digests in one typed array, at most three quarters full, instead of a Set or Map of strings:
// - DigestSet: the records an export has written, to drop a later record identical to one of them. A Set of
//   base64 SHA-256 strings took about 90 bytes a record, and an export remembers every record it writes: at
//   1,000,000 decisions (697,000 alpaca records) that was 65 MB of the heap, and it grew to the end. Here a
//   record takes 12 bytes.
// - IdNumbering: a number for each distinct id (an export plan's clusters and groups). A Map of 697,000 cluster ids
//   held about 100 MB at 1,000,000 decisions; here an id takes 16 bytes.

import { hash } from 'node:crypto';

const HEX_DIGEST = /^[0-9a-fA-F]{24}/;

/** 32-bit words of a digest kept: 96 bits, so that two different keys share one with a probability of
 * about n² / 2^97 (3e-17 for 2,000,000 keys). */
const WORDS = 3;
const FIRST_SLOTS = 1 << 14;

/**
 * Open addressing with linear probing over slots of `stride` words: the digest's three, then (stride 4) a
 * value that is never 0, which marks the slot taken. With stride 3 a slot is taken when its digest is not
 * all zeros; that digest is the caller's to keep apart.
 */
class DigestTable {
  protected table: Uint32Array;
  private mask = FIRST_SLOTS - 1;
  protected count = 0;

  constructor(private readonly stride: 3 | 4) {
    this.table = new Uint32Array(FIRST_SLOTS * stride);
  }

  /**
   * The offset of the slot that holds a, b, c, or, when none does, -1 - the offset of the empty slot where
   * it goes (a number, not a pair: this runs once per record or id).
   */
  protected find(a: number, b: number, c: number): number {
    if ((this.count + 1) * 4 > (this.mask + 1) * 3) this.grow();
    const t = this.table;
    // the digest's bits are uniform: its first word picks the slot
    for (let i = a & this.mask; ; i = (i + 1) & this.mask) {
      const o = i * this.stride;
      if (!this.taken(t, o)) return -1 - o;
      if (t[o] === a && t[o + 1] === b && t[o + 2] === c) return o;
    }
  }

  /** Fills the empty slot at offset o (from find) with a, b, c and, with stride 4, the value. */
  protected fill(o: number, a: number, b: number, c: number, value = 0): void {
    const t = this.table;
    t[o] = a;
    t[o + 1] = b;
    t[o + 2] = c;
    if (this.stride === 4) t[o + 3] = value;
    this.count++;
  }

  private taken(t: Uint32Array, o: number): boolean {
    return this.stride === 4 ? t[o + 3] !== 0 : t[o] !== 0 || t[o + 1] !== 0 || t[o + 2] !== 0;
  }

  private grow(): void {
    const old = this.table;
    const t = (this.table = new Uint32Array(old.length * 2));
    this.mask = this.mask * 2 + 1;
    for (let o = 0; o < old.length; o += this.stride) {
      if (!this.taken(old, o)) continue;
      let to = (old[o]! & this.mask) * this.stride; // o < length
      while (this.taken(t, to)) to = (to + this.stride) % t.length;
      for (let w = 0; w < this.stride; w++) t[to + w] = old[o + w]!;
    }
  }
}

export class DigestSet extends DigestTable {
  /** The all-zero digest: an empty slot holds zeros, so it is kept apart. */
  private zero = false;

  constructor() {
    super(WORDS);
  }

  get size(): number {
    return this.count + (this.zero ? 1 : 0);
  }

  /** Adds the digest whose first 96 bits are a, b, c (unsigned); false when it was there already. */
  add(a: number, b: number, c: number): boolean {
    if (a === 0 && b === 0 && c === 0) {
      if (this.zero) return false;
      return (this.zero = true);
    }
    const at = this.find(a, b, c);
    if (at < 0) this.fill(-1 - at, a, b, c);
    return at < 0;
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
}

/** Numbers ids 0, 1, 2, ... in the order they are first seen, by their stringDigest. */
export class IdNumbering extends DigestTable {
  private readonly d = new Uint32Array(WORDS);

  constructor() {
    super(4);
  }

  get size(): number {
    return this.count;
  }

  /** The id's number: the one it was given, or the next one when it is new. */
  numberOf(id: string): number {
    const d = stringDigest(id, this.d);
    const [a, b, c] = [d[0]!, d[1]!, d[2]!];
    const at = this.find(a, b, c);
    if (at >= 0) return this.table[at + 3]! - 1;
    this.fill(-1 - at, a, b, c, this.count + 1);
    return this.count - 1;
  }
}

/**
 * A 96-bit digest of a string's UTF-16 code units, into out (three words). Three lanes of multiply and
 * xor with different constants, each a bijection of its state for a given code unit, so two strings of one
 * length that differ in a single place never collide; the length starts one lane; murmur3's finaliser and
 * a cross-lane mix spread the bits. Not a cryptographic hash: it numbers ids the workspace made itself,
 * where SHA-256 cost 2.7 µs an id against about 0.2 µs here.
 */
export function stringDigest(s: string, out: Uint32Array): Uint32Array {
  let a = 0x811c9dc5 ^ s.length;
  let b = 0x85ebca6b;
  let c = 0xc2b2ae35;
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    a = Math.imul(a ^ u, 0x01000193);
    b = Math.imul(((b << 5) | (b >>> 27)) ^ u, 0x5bd1e995);
    c = Math.imul(c + u, 0xcc9e2d51);
    c ^= c >>> 15;
  }
  a = fmix(a);
  b = fmix(b + a);
  c = fmix(c + b);
  out[0] = (a + c) >>> 0;
  out[1] = b >>> 0;
  out[2] = c >>> 0;
  return out;
}

/** MurmurHash3's 32-bit finaliser: a bijection that makes every output bit depend on every input bit. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
