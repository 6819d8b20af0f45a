// The band rows of a run's new cluster leaders that are not written yet: a multimap from band key to
// leader ids in typed arrays. Each flush writes them as a new generation of the band table (dedupe.ts).
// A row takes 14 bytes (the key's two halves, its leader and the previous row of its key) and a key
// a slot in a table at most half full; the Map of id arrays this replaced took about 100 bytes a row.
// The row arrays are allocated once, at the capacity the caller gives, and every array is kept from one
// flush to the next: growing them again after each flush left the outgrown ones, tens of MB, resident
// until V8's next full collection, and a flush that went past a power of two doubled them.
import { bandKeyMix } from './bloom';

/** Row capacity unless the caller gives one; the arrays double past it. */
const INITIAL_ROWS = 4_096;
/** Slots and previous-row links hold a row + 1: 0 is none, as in a new typed array, so nothing needs a fill. */
const NONE = 0;
const TWO_32 = 4_294_967_296;
/** A key's high part (the band index) is kept in 16 bits. */
const MAX_HIGH = 0xffff;

/** Band rows keyed by band key, each row naming one leader. Insertion order within a key is not kept. */
export class PendingBands {
  private readonly leaders: string[] = [];
  private keyLow = new Uint32Array(0);
  private keyHigh = new Uint16Array(0);
  private rowLeader = new Int32Array(0);
  /** The previous row of the same key (+ 1), NONE for the first. */
  private rowPrev = new Int32Array(0);
  /** Open addressing: the newest row (+ 1) of the key that hashed here, NONE for a free slot. */
  private slots = new Int32Array(0);
  /** sortedKeys' array, kept for the next flush. */
  private sorted = new Float64Array(0);
  private distinctKeys = 0;
  rows = 0;

  /**
   * capacity: the rows the caller means to hold before it drains them, allocated at the first row (a run
   * that adds none allocates nothing).
   */
  constructor(private readonly capacity = INITIAL_ROWS) {}

  /** A new leader's band keys (distinct, as bandKeys gives them). */
  add(leaderId: string, keys: readonly number[]): void {
    const leader = this.leaders.push(leaderId) - 1;
    for (const key of keys) this.addRow(key, leader);
  }

  /** The leaders with a pending row for `key`, or undefined. */
  idsOf(key: number): string[] | undefined {
    if (!this.rows) return undefined;
    let held = this.slots[this.slotOf(key)]!; // slotOf stays inside the table
    if (held === NONE) return undefined;
    const ids: string[] = [];
    for (; held !== NONE; held = this.rowPrev[held - 1]!) ids.push(this.leaders[this.rowLeader[held - 1]!]!); // held - 1 < this.rows
    return ids;
  }

  /**
   * The distinct keys in ascending order (a flush walks them with rowsOf, then clears). The array is
   * this object's and the next call reuses it: a flush's keys are not allocated again for every flush.
   */
  sortedKeys(): Float64Array {
    // an eighth to spare: the next flush's keys are about as many, and fit
    if (this.sorted.length < this.distinctKeys) this.sorted = new Float64Array(Math.ceil(this.distinctKeys * 1.125));
    const keys = this.sorted.subarray(0, this.distinctKeys);
    let n = 0;
    for (const held of this.slots) if (held !== NONE) keys[n++] = this.keyOf(held - 1);
    return keys.sort();
  }

  /** Appends the rows of `key` to keys and ids (a flush's next chunk, built without copying every row at once). */
  rowsOf(key: number, keys: number[], ids: string[]): void {
    if (!this.rows) return;
    for (let held = this.slots[this.slotOf(key)]!; held !== NONE; held = this.rowPrev[held - 1]!) {
      keys.push(key);
      ids.push(this.leaders[this.rowLeader[held - 1]!]!); // held - 1 < this.rows
    }
  }

  /** Empties the multimap; its arrays stay for the next rows. */
  clear(): void {
    this.leaders.length = 0;
    this.slots.fill(NONE);
    this.distinctKeys = 0;
    this.rows = 0;
  }

  private keyOf(row: number): number {
    return this.keyHigh[row]! * TWO_32 + this.keyLow[row]!; // row < this.rows
  }

  private addRow(key: number, leader: number): void {
    const high = Math.floor(key / TWO_32);
    if (!(high >= 0 && high <= MAX_HIGH)) throw new RangeError(`PendingBands: band key ${key} out of range`);
    if (this.rows === this.keyLow.length) this.growRows();
    if ((this.distinctKeys + 1) * 2 > this.slots.length) this.growSlots();
    const slot = this.slotOf(key);
    const row = this.rows++;
    this.keyLow[row] = key >>> 0;
    this.keyHigh[row] = high;
    this.rowLeader[row] = leader;
    this.rowPrev[row] = this.slots[slot]!; // slotOf stays inside the table
    if (this.rowPrev[row] === NONE) this.distinctKeys++;
    this.slots[slot] = row + 1;
  }

  /** The slot holding `key`, or the free slot where it would go (linear probing; the table is at most half full). */
  private slotOf(key: number): number {
    const mask = this.slots.length - 1;
    const low = key >>> 0;
    let slot = bandKeyMix(key) & mask;
    for (let held = this.slots[slot]!; held !== NONE; held = this.slots[slot]!) {
      if (this.keyLow[held - 1] === low && this.keyOf(held - 1) === key) break;
      slot = (slot + 1) & mask;
    }
    return slot;
  }

  private growRows(): void {
    const size = Math.max(this.capacity, this.keyLow.length * 2);
    this.keyLow = grown(this.keyLow, new Uint32Array(size));
    this.keyHigh = grown(this.keyHigh, new Uint16Array(size));
    this.rowLeader = grown(this.rowLeader, new Int32Array(size));
    this.rowPrev = grown(this.rowPrev, new Int32Array(size));
  }

  /** A table twice the size (rows of one key share a slot: there are fewer keys than rows). */
  private growSlots(): void {
    const old = this.slots;
    this.slots = new Int32Array(Math.max(old.length * 2, INITIAL_ROWS * 2));
    for (const held of old) if (held !== NONE) this.slots[this.slotOf(this.keyOf(held - 1))] = held;
  }
}

function grown<T extends Uint32Array | Uint16Array | Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
