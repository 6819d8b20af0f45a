// A bounded cache for long runs (collection's dedupe lookups, its PII scans): recently used entries in two
// generations, so a long run's memory stays flat without the bookkeeping of a strict LRU.

/**
 * Recently used entries in two generations: a full young generation becomes the old one and the old
 * one is dropped; a hit in the old generation moves back to the young. Costs one Map operation per
 * access, where a strict LRU (delete and re-insert, evict the first key) cost several.
 */
export class RecentCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  constructor(private readonly generation: number) {}

  /** Entries held: under twice the generation. */
  get size(): number {
    return this.young.size + this.old.size;
  }

  get(key: K): V | undefined {
    const v = this.young.get(key);
    if (v !== undefined) return v;
    const o = this.old.get(key);
    if (o !== undefined) this.set(key, o);
    return o;
  }

  /** Without moving the entry (callers that update a cached value in place). */
  peek(key: K): V | undefined {
    return this.young.get(key) ?? this.old.get(key);
  }

  set(key: K, value: V): void {
    this.young.set(key, value);
    if (this.young.size >= this.generation) {
      this.old = this.young;
      this.young = new Map();
    }
  }

  clear(): void {
    this.young = new Map();
    this.old = new Map();
  }
}
