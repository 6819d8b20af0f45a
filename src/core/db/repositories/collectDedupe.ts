// Dedupe's statements (issue 16): exact fingerprints, LSH band rows and leader signatures of the
// near-duplicate index, and the re-clustering of stored samples.
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface LeaderSignatureRow {
  cluster_id: string;
  signature: Buffer;
  unit: string | null;
}

/**
 * Databases migrated with an early draft of migration 0050 (before the signatures moved to their own
 * table) lack these objects; creating them if missing is idempotent and keeps those workspaces working.
 */
export function ensureDedupeSchema(db: DB): void {
  if (stmt(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'dataset_minhash'").get()) return;
  db.exec(`
    CREATE TABLE IF NOT EXISTS dataset_minhash (
      sample_id  TEXT PRIMARY KEY REFERENCES dataset_samples(id) ON DELETE CASCADE,
      cluster_id TEXT NOT NULL,
      signature  BLOB NOT NULL
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS idx_samples_fingerprint_gen ON dataset_samples(fingerprint_gen, substr(fingerprint, 1, 16));
    CREATE INDEX IF NOT EXISTS idx_samples_cluster_filters
      ON dataset_samples(cluster_id, sample_type, annotation_status, quality_score, session_id, correction_id);`);
}

/**
 * A collected sample's fingerprint generation (migration 0185) is the table's last rowid, when it was
 * stored, shifted by this many bits: about 131,000 samples a generation, whose index pages (about 900)
 * are all a collection transaction's new rows dirty there. Smaller generations dirty fewer pages and cost
 * a lookup of a fingerprint first stored late more seeks (one a generation). At 300,000 decisions, 18
 * bits wrote 6,659 MiB and 17 bits 6,404 MiB (7,609 before 0185).
 */
export const FINGERPRINT_GEN_BITS = 17;

/**
 * The generation a sample stored now takes: never below the last one, so generations follow the rowid
 * even after a VACUUM numbers rows anew (it keeps their order): the lookup below relies on it.
 */
export const NEXT_FINGERPRINT_GEN = `max(
    (SELECT coalesce(max(rowid), 0) FROM dataset_samples) >> ${FINGERPRINT_GEN_BITS},
    (SELECT coalesce(max(fingerprint_gen), 0) FROM dataset_samples))`;

/**
 * The first stored sample with this fingerprint (exact duplicates all join the first one's cluster). The
 * index holds a prefix only (0181: why) after the generation (0185: why). Generations are asked from the
 * first, a seek each, and the first that holds the fingerprint answers: generations follow the rowid
 * (NEXT_FINGERPRINT_GEN), and a generation's rows of one prefix are in rowid order, the order samples were
 * stored in, so its first row whose whole fingerprint matches is the first stored copy. A lesson repeated
 * through a collection is found in the generation of its first copy and the later ones are not read.
 * Before 0181 this answered with the first by type, cluster and id, which read and sorted every copy: at
 * the last tenth of a 1,000,000-decision collection that query was 41% of its CPU (9% at the first).
 */
export function findSampleByFingerprint(db: DB, fingerprint: string): { id: string; cluster_id: string | null } | undefined {
  return stmt<{ id: string; cluster_id: string | null }>(
    db,
    `WITH RECURSIVE g(x, last, hit) AS (
      -- two subqueries: one SELECT of both min() and max() would scan the whole index
      SELECT (SELECT min(fingerprint_gen) FROM dataset_samples) - 1, (SELECT max(fingerprint_gen) FROM dataset_samples), NULL
      UNION ALL
      SELECT x + 1, last, (
        SELECT s.rowid FROM dataset_samples s
          WHERE s.fingerprint_gen = g.x + 1 AND substr(s.fingerprint, 1, 16) = substr(@fp, 1, 16) AND s.fingerprint = @fp
          ORDER BY s.rowid LIMIT 1)
      FROM g WHERE g.hit IS NULL AND g.x < g.last)
    SELECT id, cluster_id FROM dataset_samples WHERE rowid = (SELECT hit FROM g WHERE hit IS NOT NULL)`,
  ).get({ fp: fingerprint });
}

/**
 * The first 16 characters of every stored fingerprint, in index order, to seed a run's in-memory filter:
 * all that its hashes read (hexHashes), and all the index holds besides the generation, so the table is
 * not read (the range on the generation makes SQLite read the index rather than the table).
 */
export function iterateFingerprints(db: DB): IterableIterator<string> {
  return stmt(
    db,
    `SELECT substr(fingerprint, 1, 16) FROM dataset_samples
      WHERE fingerprint_gen >= -9223372036854775808 AND substr(fingerprint, 1, 16) IS NOT NULL`,
  )
    .pluck()
    .iterate() as IterableIterator<string>;
}

/**
 * The band table's generations (migration 0182), one index seek each: a CTE that lookups join, so they
 * ask each generation for its rows of a key.
 */
const GENERATIONS = `WITH RECURSIVE g(x) AS (
    SELECT min(gen) FROM dataset_lsh_bands
    UNION ALL SELECT (SELECT min(gen) FROM dataset_lsh_bands WHERE gen > g.x) FROM g WHERE g.x IS NOT NULL)`;

/**
 * The first `limit` leaders in one band, by id, over every generation. Band rows of deleted samples stay
 * until the next collection removes them (migration 0176), so only ids that still have a signature
 * count: the answer is the one the old ON DELETE CASCADE gave.
 */
export function listBandLeaders(db: DB, bandKey: number, limit: number): string[] {
  return stmt(
    db,
    `${GENERATIONS}
    SELECT DISTINCT b.sample_id FROM g JOIN dataset_lsh_bands b ON b.gen = g.x AND b.band_key = ?
      WHERE EXISTS (SELECT 1 FROM dataset_minhash m WHERE m.sample_id = b.sample_id)
      ORDER BY b.sample_id LIMIT ?`,
  )
    .pluck()
    .all(bandKey, limit) as string[];
}

/** How many generations the band table holds. */
export function countBandGenerations(db: DB): number {
  return stmt(db, `${GENERATIONS} SELECT count(x) FROM g`).pluck().get() as number;
}

/** The generation a new flush writes: after every stored one, so its rows go at the end of the B-tree. */
export function nextBandGeneration(db: DB): number {
  return stmt(db, 'SELECT coalesce(max(gen) + 1, 0) FROM dataset_lsh_bands').pluck().get() as number;
}

/** Every stored band key, in key order (to seed a run's in-memory filter). */
export function iterateBandKeys(db: DB): IterableIterator<number> {
  return stmt(db, 'SELECT band_key FROM dataset_lsh_bands').pluck().iterate() as IterableIterator<number>;
}

/** Rows per multi-row insert: one call into SQLite instead of many. */
const BAND_ROWS_PER_STATEMENT = 64;

/** Band rows of one generation; rows sorted by key append to the B-tree once each. */
export function insertBandRows(db: DB, gen: number, keys: ArrayLike<number>, sampleIds: string[]): void {
  const one = stmt(db, 'INSERT OR IGNORE INTO dataset_lsh_bands (gen, band_key, sample_id) VALUES (?, ?, ?)');
  const many = stmt(
    db,
    `INSERT OR IGNORE INTO dataset_lsh_bands (gen, band_key, sample_id) VALUES ${Array(BAND_ROWS_PER_STATEMENT).fill('(?, ?, ?)').join(', ')}`,
  );
  const args: unknown[] = new Array(BAND_ROWS_PER_STATEMENT * 3);
  let i = 0;
  for (; i + BAND_ROWS_PER_STATEMENT <= sampleIds.length; i += BAND_ROWS_PER_STATEMENT) {
    for (let j = 0; j < BAND_ROWS_PER_STATEMENT; j++) {
      args[3 * j] = gen;
      args[3 * j + 1] = keys[i + j];
      args[3 * j + 2] = sampleIds[i + j];
    }
    many.run(args);
  }
  for (; i < sampleIds.length; i++) one.run(gen, keys[i], sampleIds[i]);
}

/**
 * Rewrites every generation below `into` as generation `into`, the rows of band keys in [from, to) at a
 * time (a bounded sort per call), in key order: one sequential write. deleteBandGenerationsBelow ends it.
 */
export function copyBandRowsToGeneration(db: DB, into: number, from: number, to: number): number {
  return stmt(
    db,
    `${GENERATIONS}
    INSERT OR IGNORE INTO dataset_lsh_bands (gen, band_key, sample_id)
      SELECT @into, b.band_key, b.sample_id FROM g JOIN dataset_lsh_bands b ON b.gen = g.x AND b.band_key >= @from AND b.band_key < @to
       WHERE g.x < @into ORDER BY b.band_key, b.sample_id`,
  ).run({ into, from, to }).changes;
}

export function deleteBandGenerationsBelow(db: DB, gen: number): number {
  return stmt(db, 'DELETE FROM dataset_lsh_bands WHERE gen < ?').run(gen).changes;
}

export function findLeaderSignature(db: DB, sampleId: string): LeaderSignatureRow | undefined {
  return stmt<LeaderSignatureRow>(db, 'SELECT cluster_id, signature, unit FROM dataset_minhash WHERE sample_id = ?').get(sampleId);
}

/**
 * An upsert, not INSERT OR REPLACE: the row ends the same, but a REPLACE may delete a row, so with foreign
 * keys on SQLite counts the key check and opens a statement journal for it (EXPLAIN shows FkCounter);
 * this form checks the key in place. A new leader's row: 4.3-5.0 instead of 6.2-7.5 µs (39,201 rows).
 */
export function upsertLeaderSignature(db: DB, sampleId: string, clusterId: string, signature: Buffer, unit: string): void {
  stmt(
    db,
    `INSERT INTO dataset_minhash (sample_id, cluster_id, signature, unit) VALUES (?, ?, ?, ?)
      ON CONFLICT (sample_id) DO UPDATE SET cluster_id = excluded.cluster_id, signature = excluded.signature, unit = excluded.unit`,
  ).run(sampleId, clusterId, signature, unit);
}

/** True when a stored signature predates the teaching-unit scheme. */
export function hasSignaturesWithoutUnit(db: DB): boolean {
  return stmt(db, 'SELECT 1 FROM dataset_minhash WHERE unit IS NULL LIMIT 1').get() !== undefined;
}

/** Empties the near-duplicate index and the fingerprints, before a re-clustering. */
export function clearDedupeIndex(db: DB): void {
  db.exec('DELETE FROM dataset_lsh_bands; DELETE FROM dataset_minhash; UPDATE dataset_samples SET fingerprint = NULL');
}

export interface StoredSampleForDedupe {
  r: number;
  id: string;
  content: string;
  redacted: string | null;
  labels: string | null;
}

export function listSamplesForDedupe(db: DB, afterRowid: number, limit: number): StoredSampleForDedupe[] {
  return stmt<StoredSampleForDedupe>(
    db,
    `SELECT rowid AS r, id, content, pii_redacted_content AS redacted, labels FROM dataset_samples
      WHERE rowid > ? ORDER BY rowid LIMIT ?`,
  ).all(afterRowid, limit);
}

export function updateSampleCluster(db: DB, sampleId: string, fingerprint: string, clusterId: string, labels: string): void {
  stmt(db, 'UPDATE dataset_samples SET fingerprint = ?, cluster_id = ?, labels = ? WHERE id = ?').run(
    fingerprint,
    clusterId,
    labels,
    sampleId,
  );
}

/** Leaders (stored signatures) and band rows: a run that stopped before persisting its bands leaves fewer rows than leaders x bands. */
export function countLeadersAndBandRows(db: DB): { leaders: number; bandRows: number } {
  return stmt<{ leaders: number; bandRows: number }>(
    db,
    'SELECT (SELECT count(*) FROM dataset_minhash) AS leaders, (SELECT count(*) FROM dataset_lsh_bands) AS bandRows',
  ).get()!;
}

/** Leaders with a teaching unit after `afterId`, by id (a repair checks each one's band rows, page by page). */
export function listLeadersPage(db: DB, afterId: string, limit: number): { sample_id: string; signature: Buffer; unit: string }[] {
  return stmt<{ sample_id: string; signature: Buffer; unit: string }>(
    db,
    'SELECT sample_id, signature, unit FROM dataset_minhash WHERE unit IS NOT NULL AND sample_id > ? ORDER BY sample_id LIMIT ?',
  ).all(afterId, limit);
}

/** Whether one band row is stored, in any generation (a primary-key lookup per generation). */
export function bandRowExists(db: DB, bandKey: number, sampleId: string): boolean {
  return (
    stmt(db, `${GENERATIONS} SELECT 1 FROM g JOIN dataset_lsh_bands b ON b.gen = g.x AND b.band_key = ? AND b.sample_id = ? LIMIT 1`).get(
      bandKey,
      sampleId,
    ) !== undefined
  );
}

/** Removes band rows whose sample is gone (no signature row): deletes leave them behind (migration 0176). */
export function deleteOrphanBandRows(db: DB): number {
  return stmt(
    db,
    `DELETE FROM dataset_lsh_bands
      WHERE NOT EXISTS (SELECT 1 FROM dataset_minhash m WHERE m.sample_id = dataset_lsh_bands.sample_id)`,
  ).run().changes;
}
