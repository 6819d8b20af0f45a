// Which generations of the fingerprint table (migration 0185) may hold a fingerprint: a Bloom filter per
// generation, so dedupe's exact lookup asks SQLite only about the one or two that may, not every one
// (each generation asked is an index seek: with 20 of them, a lookup took 3 times as long as with the
// single prefix index of migration 0181). A generation without a filter is always asked.
import type { DB } from '../../db/connection';
import {
  countFingerprintsOf,
  currentFingerprintGeneration,
  insertFingerprintRow,
  iterateFingerprintsOf,
  listFingerprintGenerations,
} from '../../db/repositories/collectDedupe';
import { BloomFilter, hexHashes } from './bloom';

/** Rows a collection transaction writes at most, to size its filter (collect.ts: 3,000 decisions of 3 samples). */
const TRANSACTION_ROWS = 9_000;
/**
 * A filter is sized for twice its rows: a lookup asks every generation whose filter says "maybe", so
 * with 20 of them at 1.7% false positives each a new fingerprint went to SQLite one time in three;
 * at twice the bits, about one in twenty (2 MB of filters at 300,000 decisions).
 */
const ROOM = 2;

export class FingerprintGenerations {
  /** Every stored generation; null: not known row by row (written by others, or not seeded), always asked. */
  private readonly filters = new Map<number, BloomFilter | null>();
  /** The generation this connection writes now (startWriting), its filter kept by add(). */
  private writing: { gen: number; filter: BloomFilter } | undefined;

  /** seed: read every stored prefix into its generation's filter (worth it for a run that adds many samples). */
  constructor(
    private readonly db: DB,
    seed: boolean,
  ) {
    // the generation the trigger writes into now may grow while this runs: always asked
    const open = currentFingerprintGeneration(db);
    for (const gen of listFingerprintGenerations(db)) this.filters.set(gen, seed && gen !== open ? this.read(gen) : null);
  }

  /**
   * From now on this connection's new fingerprints go into `gen` (add() and the trigger of migration 0185
   * write the rows), and its filter holds them. Generations others wrote meanwhile are picked up, unfiltered.
   */
  startWriting(gen: number): void {
    const stored = new Set(listFingerprintGenerations(this.db));
    for (const g of this.filters.keys()) if (!stored.has(g)) this.filters.delete(g);
    for (const g of stored) if (!this.filters.has(g)) this.filters.set(g, null);
    this.writing = { gen, filter: new BloomFilter(TRANSACTION_ROWS) };
    this.filters.set(gen, this.writing.filter);
  }

  /**
   * The end of the writing; returns the generation written. Others must write into a later one: rows
   * they wrote into it would be missing from its filter.
   */
  stopWriting(): number | undefined {
    const gen = this.writing?.gen;
    this.writing = undefined;
    return gen;
  }

  /** A sample this connection stored while writing: its row, in the generation written. */
  add(fingerprint: string, sampleId: string): void {
    if (!this.writing) throw new Error('FingerprintGenerations: a sample stored outside startWriting');
    insertFingerprintRow(this.db, this.writing.gen, fingerprint, sampleId);
    this.writing.filter.add(...hexHashes(fingerprint));
  }

  /** Generations `from` became `into` (a merge): its filter is read from its rows. */
  merged(from: number[], into: number): void {
    for (const g of from) this.filters.delete(g);
    this.filters.set(into, this.read(into));
  }

  /** The generations that may hold this fingerprint, as a JSON array for the lookup; null when none may. */
  candidates(fingerprint: string): string | null {
    const [h1, h2] = hexHashes(fingerprint);
    let out: string | null = null;
    for (const [gen, filter] of this.filters) {
      if (filter && !filter.mayContain(h1, h2)) continue;
      out = out === null ? `[${gen}` : `${out},${gen}`;
    }
    return out === null ? null : `${out}]`;
  }

  private read(gen: number): BloomFilter {
    const filter = new BloomFilter(ROOM * countFingerprintsOf(this.db, gen));
    for (const prefix of iterateFingerprintsOf(this.db, gen)) filter.add(...hexHashes(prefix));
    return filter;
  }
}
