// Exact and near-duplicate detection (seed 001's fingerprint dedupe, seed 004's 0.85 / 0.60 thresholds).
// Near duplicates: MinHash over character shingles of normalized text, which works for Chinese
// (no word boundaries) as well as English, with LSH banding to find candidates without a full scan.
// MinHash only proposes candidates; the thresholds are applied to the exact Jaccard of the candidates.
import { hash } from 'node:crypto';

export const MINHASH_SIZE = 64;
/**
 * 16 bands of 4 rows: a pair at Jaccard s shares a band with probability 1-(1-s^4)^16 (0.60: 0.89,
 * 0.85: 1.000). The signature only finds candidates: every candidate is confirmed by the exact
 * Jaccard, so a merge never rests on the estimate, and a pair above 0.85 is practically always found.
 */
export const LSH_BANDS = 16;
const ROWS = MINHASH_SIZE / LSH_BANDS;
/** Character shingle length for near duplicates: 3 keeps short Chinese facts apart without missing English paraphrases. */
export const SHINGLE = 3;
const MAX_CHARS = 4000;

/** Lower case, NFKC (full-width to half-width), punctuation and whitespace runs collapsed to one space. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\p{P}\p{S}]+/gu, ' ')
    .trim();
}

export function fingerprint(parts: string[]): string {
  return fingerprintNormalized(parts.map(normalizeText));
}

export function fingerprintNormalized(normalizedParts: string[]): string {
  return hash('sha256', normalizedParts.join('\n'), 'hex'); // one-shot: half the cost of a Hash object
}

// FNV-1a over UTF-16 units: cheap and good enough to feed the permutations below.
function hashString(s: string, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// Fixed odd multipliers and offsets: a seeded family of universal hash functions.
const A = new Uint32Array(MINHASH_SIZE);
const B = new Uint32Array(MINHASH_SIZE);
{
  let x = 0x9e3779b9;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  for (let i = 0; i < MINHASH_SIZE; i++) {
    A[i] = next() | 1;
    B[i] = next();
  }
}

/** The MinHash signature of a text (already normalized or not: it is normalized here). */
export function minhash(text: string): Uint32Array {
  return minhashNormalized(normalizeText(text));
}

/** The shingle hashes of the text being signed, reused from call to call (grown on demand). */
let shingleHashes = new Uint32Array(1024);

export function minhashNormalized(normalized: string): Uint32Array {
  const t = normalized.slice(0, MAX_CHARS);
  const sig = new Uint32Array(MINHASH_SIZE);
  const n = Math.max(1, t.length - SHINGLE + 1);
  if (shingleHashes.length < n) shingleHashes = new Uint32Array(Math.max(n, shingleHashes.length * 2));
  const hs = shingleHashes;
  // the same shingles as shingleSet, so the estimate targets the Jaccard the exact check computes
  for (let i = 0; i < n; i++) hs[i] = hashString(t, i, Math.min(t.length, i + SHINGLE));
  // Four permutations at a time over all shingles: their minima stay in registers, where a shingle at a
  // time loaded and stored all 64 minima per shingle, and one permutation per pass reloaded every
  // shingle 64 times (same signature; a third less time than one per pass, measured).
  for (let k = 0; k < MINHASH_SIZE; k += 4) minhashFour(hs, n, k, sig);
  return sig;
}

/** Permutations k..k+3 of the MinHash over the first n shingle hashes, into sig[k..k+3]. */
function minhashFour(hs: Uint32Array, n: number, k: number, sig: Uint32Array): void {
  // A and B hold MINHASH_SIZE entries, a multiple of 4, and k steps by 4 below it
  const a0 = A[k]!,
    b0 = B[k]!,
    a1 = A[k + 1]!,
    b1 = B[k + 1]!;
  const a2 = A[k + 2]!,
    b2 = B[k + 2]!,
    a3 = A[k + 3]!,
    b3 = B[k + 3]!;
  let m0 = 0xffffffff,
    m1 = 0xffffffff,
    m2 = 0xffffffff,
    m3 = 0xffffffff;
  for (let i = 0; i < n; i++) {
    const h = hs[i]!; // i < n <= hs.length
    const v0 = (Math.imul(h, a0) + b0) >>> 0;
    if (v0 < m0) m0 = v0;
    const v1 = (Math.imul(h, a1) + b1) >>> 0;
    if (v1 < m1) m1 = v1;
    const v2 = (Math.imul(h, a2) + b2) >>> 0;
    if (v2 < m2) m2 = v2;
    const v3 = (Math.imul(h, a3) + b3) >>> 0;
    if (v3 < m3) m3 = v3;
  }
  sig[k] = m0;
  sig[k + 1] = m1;
  sig[k + 2] = m2;
  sig[k + 3] = m3;
}

export function similarity(a: Uint32Array, b: Uint32Array): number {
  let same = 0;
  for (let i = 0; i < MINHASH_SIZE; i++) if (a[i] === b[i]) same++;
  return same / MINHASH_SIZE;
}

/** Band keys, salted with a namespace (the sample type) so only like samples are compared. */
export function bandKeys(sig: Uint32Array, namespace: string): number[] {
  const salt = hashString(namespace, 0, namespace.length);
  const keys: number[] = [];
  for (let b = 0; b < LSH_BANDS; b++) {
    let h = (salt ^ Math.imul(b + 1, 0x9e3779b1)) >>> 0;
    for (let r = 0; r < ROWS; r++) h = Math.imul(h ^ sig[b * ROWS + r]!, 0x01000193) >>> 0; // LSH_BANDS * ROWS = MINHASH_SIZE
    // band index in the high bits keeps keys of different bands apart; stays a safe integer
    keys.push(b * 2 ** 32 + h);
  }
  return keys;
}

export const signatureToBlob = (sig: Uint32Array): Buffer => Buffer.from(sig.buffer, sig.byteOffset, sig.byteLength);
export const blobToSignature = (blob: Buffer): Uint32Array => {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Uint32Array(copy.buffer);
};

/** Exact character-shingle Jaccard, for small texts where an estimate is not needed. */
export function jaccard(a: string, b: string): number {
  return jaccardNormalized(normalizeText(a), normalizeText(b));
}

/** Exact Jaccard of two already normalized texts' character shingles (the dedupe thresholds apply to this). */
export function jaccardNormalized(a: string, b: string): number {
  return jaccardOfShingles(unitShingles(a), unitShingles(b));
}

const TWO_16 = 65_536;
const TWO_32 = 4_294_967_296;
const TWO_48 = 281_474_976_710_656;

/**
 * The distinct character shingles of a normalized text, as sorted exact codes: three UTF-16 units fit
 * in 48 bits of a double, so comparing codes is comparing the shingles themselves (no hash, no
 * collisions), and two sorted arrays intersect in one merge instead of a Set lookup per shingle.
 * A text shorter than a shingle is its one shingle, coded apart by its length.
 */
export function unitShingles(normalized: string): Float64Array {
  const t = normalized.slice(0, MAX_CHARS);
  if (t.length < SHINGLE) {
    if (!t) return new Float64Array(0);
    let code = 0;
    for (let i = 0; i < t.length; i++) code = code * TWO_16 + t.charCodeAt(i);
    return Float64Array.of((SHINGLE + t.length) * TWO_48 + code);
  }
  const n = t.length - SHINGLE + 1;
  const codes = new Float64Array(n);
  for (let i = 0; i < n; i++) codes[i] = t.charCodeAt(i) * TWO_32 + t.charCodeAt(i + 1) * TWO_16 + t.charCodeAt(i + 2);
  codes.sort();
  let m = 0;
  for (let i = 0; i < n; i++) if (i === 0 || codes[i] !== codes[m - 1]) codes[m++] = codes[i]!;
  return codes.subarray(0, m);
}

/** Distinct shingles a ShingleIds dictionary holds before it starts over: about 17 MB of Map (measured) at most. */
const SHINGLE_IDS_LIMIT = 150_000;

/**
 * Exact Jaccard of one new unit against many candidates, for dedupe: a sample meets about 60 candidate
 * leaders in a crowded workspace, and merging two sorted code arrays per pair was most of collection's
 * dedupe time. Here each distinct shingle code gets a dense id for the run, the new unit's ids are
 * stamped into an array once, and a candidate's intersection is one array load per shingle. The counts
 * are the same integers the merge gives (codes are exact, ids are one-to-one), so the Jaccard is equal.
 */
export class ShingleIds {
  /**
   * The dictionary, code to id, as an open-addressing table in typed arrays: a Map of double keys cost
   * a boxed number and a hash per lookup, and about 17 MB at the limit (this: 6 MB at most).
   */
  private codes = new Float64Array(0);
  private slots = new Int32Array(0);
  private size = 0;
  /**
   * One bit per id: the marked unit's ids are set. A bitset of 100,000 shingles is 12 KB, so the
   * candidates' lookups stay in the first-level cache (a stamp word per id was 32 times larger).
   */
  private bits = new Uint32Array(128);
  private marked: Int32Array = new Int32Array(0);
  /** The idsOf call that last met each id (its stamp), so a unit's repeated shingles count once. */
  private seen = new Int32Array(1024);
  private stamp = 0;
  /** Bumped when the dictionary starts over: ids of an older generation must be rebuilt (idsOf). */
  generation = 0;

  constructor(private readonly limit = SHINGLE_IDS_LIMIT) {
    this.allocate(1024);
  }

  /**
   * The distinct shingles of a normalized unit as ids of this generation. The codes are those of
   * unitShingles, but repeats are dropped by id (a stamp per id) instead of by sorting the codes: the
   * sort was half of a unit's cost, and the Jaccard needs distinct members, not an order.
   */
  idsOf(normalized: string): Int32Array {
    const t = normalized.slice(0, MAX_CHARS);
    if (t.length < SHINGLE) return this.idsOfCodes(unitShingles(t));
    const n = t.length - SHINGLE + 1;
    const out = new Int32Array(n);
    const stamp = ++this.stamp;
    let m = 0;
    for (let i = 0; i < n; i++) {
      const id = this.idOf(t.charCodeAt(i) * TWO_32 + t.charCodeAt(i + 1) * TWO_16 + t.charCodeAt(i + 2));
      if (id >= this.seen.length) this.growSeen();
      if (this.seen[id] === stamp) continue; // id < seen.length: grown above
      this.seen[id] = stamp;
      out[m++] = id;
    }
    if (this.size > this.bits.length * 32) this.grow();
    return m === n ? out : out.slice(0, m);
  }

  private idsOfCodes(codes: Float64Array): Int32Array {
    const out = new Int32Array(codes.length);
    for (let i = 0; i < codes.length; i++) out[i] = this.idOf(codes[i]!); // i < length
    if (this.size > this.bits.length * 32) this.grow();
    return out;
  }

  /**
   * Marks a new unit for the jaccardWithMarked calls that follow, and returns its ids. Starts the
   * dictionary over first when it is full, so ids made during this unit's comparisons share a generation.
   */
  mark(normalized: string): Int32Array {
    const bits = this.bits;
    for (const id of this.marked) bits[id >>> 5]! &= ~(1 << (id & 31));
    if (this.size > this.limit) this.reset();
    const mine = this.idsOf(normalized);
    for (const id of mine) this.bits[id >>> 5]! |= 1 << (id & 31);
    this.marked = mine;
    return mine;
  }

  /** Exact Jaccard of the marked unit's shingles and `ids` (both distinct): as jaccardOfShingles on their codes. */
  jaccardWithMarked(ids: Int32Array): number {
    const size = this.marked.length;
    if (!size && !ids.length) return 1;
    const bits = this.bits;
    let inter = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!; // i < length
      inter += (bits[id >>> 5]! >>> (id & 31)) & 1; // every id of this generation has its word (idsOf grows)
    }
    return inter / (size + ids.length - inter);
  }

  /** The id of a shingle code, given the next id when it is new. */
  private idOf(code: number): number {
    if ((this.size + 1) * 2 > this.slots.length) this.rehash();
    const at = this.find(code);
    const slot = this.slots[at]!; // find returns a slot index
    if (slot !== 0) return slot - 1;
    const id = this.size++;
    this.codes[id] = code; // codes holds half as many entries as slots, and size stays under half
    this.slots[at] = id + 1;
    return id;
  }

  /** The slot holding `code` (id + 1), or the empty slot where it goes. */
  private find(code: number): number {
    const mask = this.slots.length - 1;
    // codes are below 2^51: mix the high and the low 32 bits (ToUint32 keeps the low ones), then fold
    // the product's high bits down, since the mask keeps low ones
    const x = (code >>> 0) ^ Math.imul(Math.floor(code / TWO_32), 0x9e3779b1);
    const h = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
    let at = (h ^ (h >>> 13)) & mask;
    for (let slot = this.slots[at]!; slot !== 0 && this.codes[slot - 1] !== code; slot = this.slots[at]!) at = (at + 1) & mask;
    return at;
  }

  private allocate(slots: number): void {
    this.slots = new Int32Array(slots);
    this.codes = new Float64Array(slots / 2);
    this.size = 0;
  }

  /** Twice the slots, every id kept. */
  private rehash(): void {
    const codes = this.codes;
    const n = this.size;
    this.allocate(this.slots.length * 2);
    this.codes.set(codes.subarray(0, n));
    this.size = n;
    for (let id = 0; id < n; id++) this.slots[this.find(codes[id]!)] = id + 1; // id < n <= codes.length
  }

  private growSeen(): void {
    const next = new Int32Array(Math.max(this.size, this.seen.length * 2));
    next.set(this.seen);
    this.seen = next;
  }

  private grow(): void {
    const next = new Uint32Array(Math.max(Math.ceil(this.size / 32), this.bits.length * 2));
    next.set(this.bits);
    this.bits = next;
  }

  private reset(): void {
    this.allocate(1024);
    this.bits = new Uint32Array(128);
    this.marked = new Int32Array(0);
    this.seen = new Int32Array(1024);
    this.stamp = 0;
    this.generation++;
  }
}

/** Exact Jaccard of two shingle code sets from unitShingles. */
export function jaccardOfShingles(a: Float64Array, b: Float64Array): number {
  if (!a.length && !b.length) return 1;
  let inter = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) {
      inter++;
      i++;
      j++;
    } else if (a[i]! < b[j]!)
      i++; // both inside: the loop condition
    else j++;
  }
  return inter / (a.length + b.length - inter);
}
