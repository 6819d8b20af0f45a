// The distinct strings of one row group's dictionary columns, numbered once for all of them. A training
// row carries the same texts in several columns (its answer in `output`, in `messages` and in
// `conversations`; its transcript in the last two), and each dictionary column looked each one up in its
// own Map: about 1.2 million lookups per 100,000-decision export, most of them in tables too large for
// the cache. Here a text is looked up about once per row: the string last numbered in each slot (by its
// length and first character) is remembered, and a column that meets the same string again (the same
// object, or equal text) takes its number from there; 1.36 million strings of the export's rows come to
// 284,000 lookups (572,000 with slots by length alone). Each column still numbers its own dictionary
// (TextLeaf), in the order its values first appear, so its pages are the same bytes.

const SLOTS = 128;

export class StringIds {
  private ids = new Map<string, number>();
  /** The string last numbered in each slot, and its number. */
  private readonly recent: (string | null)[] = new Array<string | null>(SLOTS).fill(null);
  private readonly recentIds = new Int32Array(SLOTS);

  /** How many distinct strings are numbered (numbers run from 0). */
  get size(): number {
    return this.ids.size;
  }

  id(s: string): number {
    const slot = (s.length * 7 + (s.charCodeAt(0) | 0)) & (SLOTS - 1);
    if (this.recent[slot] === s) return this.recentIds[slot]!;
    let id = this.ids.get(s);
    if (id === undefined) this.ids.set(s, (id = this.ids.size));
    this.recent[slot] = s;
    this.recentIds[slot] = id;
    return id;
  }

  /** Starts the next row group: no string numbered. */
  clear(): void {
    this.ids = new Map();
    this.recent.fill(null);
  }
}
