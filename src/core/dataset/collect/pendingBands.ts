// The band rows of a run's new cluster leaders that are not written yet: a multimap from band key to
// leader ids in typed arrays. Band keys are random, so every flush into the band table rewrites most of
// its pages; the fewer flushes a run makes, the fewer bytes it writes. A Map of id arrays took about
// 100 bytes per row; these arrays take about 24, so a run holds five times the rows in the same memory
// and flushes five times less often.
import { bandKeyMix } from './bloom';

/** First slot table and row capacity; both double as they fill. */
const INITIAL_ROWS = 4_096;
const EMPTY = -1;

/** Band rows keyed by band key, each row naming one leader. Insertion order within a key is not kept. */
export class PendingBands {
  private readonly leaders: string[] = [];
  private rowKey = new Float64Array(INITIAL_ROWS);
  private rowLeader = new Int32Array(INITIAL_ROWS);
  /** The previous row of the same key, EMPTY for the first. */
  private rowPrev = new Int32Array(INITIAL_ROWS);
  /** Open addressing: the newest row of the key that hashed here, EMPTY for a free slot. */
  private slots = new Int32Array(INITIAL_ROWS * 2).fill(EMPTY);
  private distinctKeys = 0;
  rows = 0;

  /** A new leader's band keys (distinct, as bandKeys gives them). */
  add(leaderId: string, keys: readonly number[]): void {
    const leader = this.leaders.push(leaderId) - 1;
    for (const key of keys) this.addRow(key, leader);
  }

  /** The leaders with a pending row for `key`, or undefined. */
  idsOf(key: number): string[] | undefined {
    let row = this.slots[this.slotOf(key)]!; // slotOf stays inside the table
    if (row === EMPTY) return undefined;
    const ids: string[] = [];
    for (; row !== EMPTY; row = this.rowPrev[row]!) ids.push(this.leaders[this.rowLeader[row]!]!); // rows < this.rows
    return ids;
  }

  /** The distinct keys in ascending order (a flush walks them with rowsOf, then clears). */
  sortedKeys(): Float64Array {
    const keys = new Float64Array(this.distinctKeys);
    let n = 0;
    for (const row of this.slots) if (row !== EMPTY) keys[n++] = this.rowKey[row]!; // a used slot names a row
    return keys.sort();
  }

  /** Appends the rows of `key` to keys and ids (a flush's next chunk, built without copying every row at once). */
  rowsOf(key: number, keys: number[], ids: string[]): void {
    for (let row = this.slots[this.slotOf(key)]!; row !== EMPTY; row = this.rowPrev[row]!) {
      keys.push(key);
      ids.push(this.leaders[this.rowLeader[row]!]!); // rows < this.rows
    }
  }

  private addRow(key: number, leader: number): void {
    if (this.rows === this.rowKey.length) this.growRows();
    if ((this.distinctKeys + 1) * 2 > this.slots.length) this.growSlots();
    const slot = this.slotOf(key);
    const row = this.rows++;
    this.rowKey[row] = key;
    this.rowLeader[row] = leader;
    this.rowPrev[row] = this.slots[slot]!; // slotOf stays inside the table
    if (this.rowPrev[row] === EMPTY) this.distinctKeys++;
    this.slots[slot] = row;
  }

  /** The slot holding `key`, or the free slot where it would go (linear probing; the table is at most half full). */
  private slotOf(key: number): number {
    const mask = this.slots.length - 1;
    let slot = bandKeyMix(key) & mask;
    for (let row = this.slots[slot]!; row !== EMPTY && this.rowKey[row] !== key; row = this.slots[slot]!) slot = (slot + 1) & mask;
    return slot;
  }

  private growRows(): void {
    const size = this.rowKey.length * 2;
    this.rowKey = grown(this.rowKey, new Float64Array(size));
    this.rowLeader = grown(this.rowLeader, new Int32Array(size));
    this.rowPrev = grown(this.rowPrev, new Int32Array(size));
  }

  private growSlots(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2).fill(EMPTY);
    for (const row of old) if (row !== EMPTY) this.slots[this.slotOf(this.rowKey[row]!)] = row; // a used slot names a row
  }

  clear(): void {
    this.leaders.length = 0;
    this.rowKey = new Float64Array(INITIAL_ROWS);
    this.rowLeader = new Int32Array(INITIAL_ROWS);
    this.rowPrev = new Int32Array(INITIAL_ROWS);
    this.slots = new Int32Array(INITIAL_ROWS * 2).fill(EMPTY);
    this.distinctKeys = 0;
    this.rows = 0;
  }
}

function grown<T extends Float64Array | Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
