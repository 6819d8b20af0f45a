// Cluster assignment for a new sample: exact fingerprint first, then MinHash LSH candidates.
import type { DB } from '../../db/connection';
import type { DatasetCollectionConfig } from './config';
import { forEachText } from './privacy';
import { LSH_BANDS, bandKeys, blobToSignature, fingerprintNormalized, minhashNormalized, normalizeText, signatureToBlob, similarity } from './similarity';

/** At most this many band rows are compared per new sample, so a crowded band stays cheap. */
const BAND_CANDIDATES = 32;
/** Entries per cache (least recently used go first; a miss reads the database): tens of MB at most. */
const CACHE_LIMIT = 100_000;

const ID_FIELDS = /(^|\.)(conversationId|turnNumber)$/;

/** The texts that make a sample what it is (ids excluded, so re-collections of one text match). */
export function sampleTexts(content: unknown): string[] {
  const parts: string[] = [];
  forEachText(content, (field, text) => {
    if (!ID_FIELDS.test(field)) parts.push(text);
  });
  return parts;
}

/** Least-recently-used bound: a Map iterates in insertion order, so the first key is the oldest. */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > CACHE_LIMIT) map.delete(map.keys().next().value as K);
}

export interface ClusterAssignment {
  fingerprint: string;
  clusterId: string;
  duplicateOf?: string;
  similarity?: number;
  relatedSampleIds: string[];
  signature: Buffer;
  bandKeys: number[];
}

/**
 * Databases migrated with an early draft of migration 0050 (before the signatures moved to their own
 * table) lack these objects; creating them if missing is idempotent and keeps those workspaces working.
 */
function ensureDedupeSchema(db: DB): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS dataset_minhash (
      sample_id  TEXT PRIMARY KEY REFERENCES dataset_samples(id) ON DELETE CASCADE,
      cluster_id TEXT NOT NULL,
      signature  BLOB NOT NULL
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS idx_samples_fingerprint_cluster ON dataset_samples(fingerprint, sample_type, cluster_id, id);
    CREATE INDEX IF NOT EXISTS idx_samples_cluster_filters
      ON dataset_samples(cluster_id, sample_type, annotation_status, quality_score, session_id, correction_id);`);
}

export class Deduper {
  private readonly byFingerprint;
  private readonly byBand;
  private readonly signatureOf;
  private readonly insertBands;
  private readonly insertSignature;
  /**
   * One collection run looks up the same band keys and signatures over and over; caching them
   * (band key -> its first BAND_CANDIDATES sample ids, sample id -> cluster and signature) turns most
   * lookups into map reads. Index() keeps them in step with what it writes; bounded by clearing.
   */
  private readonly bandCache = new Map<number, string[]>();
  private readonly normalizedCache = new Map<string, string>();
  private readonly signatureCache = new Map<string, { clusterId: string; signature: Uint32Array } | null>();

  constructor(private readonly db: DB, private readonly cfg: DatasetCollectionConfig['dedupe']) {
    if (!db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'dataset_minhash'").get()) ensureDedupeSchema(db);
    this.byFingerprint = db.prepare(
      // any member will do: exact duplicates all join the first one's cluster
      'SELECT id, cluster_id FROM dataset_samples WHERE fingerprint = ? AND sample_type = ? LIMIT 1',
    );
    // only cluster leaders are indexed, so each candidate is a cluster
    this.byBand = db.prepare(`SELECT sample_id FROM dataset_lsh_bands WHERE band_key = ? ORDER BY sample_id LIMIT ${BAND_CANDIDATES}`).pluck();
    this.signatureOf = db.prepare('SELECT cluster_id, signature FROM dataset_minhash WHERE sample_id = ?');
    // all of a sample's bands in one statement: one call into SQLite instead of eight
    this.insertBands = db.prepare(
      `INSERT OR IGNORE INTO dataset_lsh_bands (band_key, sample_id) VALUES ${Array.from({ length: LSH_BANDS }, () => '(?, ?)').join(', ')}`,
    );
    this.insertSignature = db.prepare('INSERT OR REPLACE INTO dataset_minhash (sample_id, cluster_id, signature) VALUES (?, ?, ?)');
  }

  assign(sampleId: string, sampleType: string, content: unknown): ClusterAssignment {
    const texts = sampleTexts(content);
    const normalized = texts.map((t) => this.normalized(t));
    const fp = fingerprintNormalized([normalizeText(sampleType), ...normalized]);
    const sig = minhashNormalized(normalized.filter((t, i) => texts[i] !== sampleType).join(' '));
    const keys = bandKeys(sig, sampleType);
    const base = { fingerprint: fp, signature: signatureToBlob(sig), bandKeys: keys, relatedSampleIds: [] as string[] };
    const exact = this.byFingerprint.get(fp, sampleType) as { id: string; cluster_id: string | null } | undefined;
    if (exact) return { ...base, clusterId: exact.cluster_id ?? exact.id, duplicateOf: exact.id, similarity: 1 };

    let best: { id: string; cluster: string; sim: number } | undefined;
    const related = new Map<string, number>();
    for (const id of this.candidates(keys)) {
      const c = this.signature(id);
      if (!c) continue;
      const sim = similarity(sig, c.signature);
      if (sim >= this.cfg.sameThreshold) {
        if (!best || sim > best.sim) best = { id, cluster: c.clusterId, sim };
      } else if (sim >= this.cfg.relatedThreshold) {
        related.set(id, sim);
      }
    }
    const relatedSampleIds = [...related.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([id]) => id);
    if (best) return { ...base, clusterId: best.cluster, duplicateOf: best.id, similarity: best.sim, relatedSampleIds };
    return { ...base, clusterId: sampleId, relatedSampleIds };
  }

  /** Indexes a stored sample that opened a cluster, so later samples find the cluster (leader clustering). */
  index(sampleId: string, a: ClusterAssignment): void {
    if (a.clusterId !== sampleId) return;
    this.insertSignature.run(sampleId, a.clusterId, a.signature);
    remember(this.signatureCache, sampleId, { clusterId: a.clusterId, signature: blobToSignature(a.signature) });
    this.insertBands.run(a.bandKeys.flatMap((k) => [k, sampleId]));
    for (const k of a.bandKeys) {
      const list = this.bandCache.get(k);
      if (!list || list.includes(sampleId)) continue;
      // keep the cached list exactly what the query would return: ids in order, at most BAND_CANDIDATES
      let at = list.length;
      while (at > 0 && list[at - 1] > sampleId) at--;
      if (at < BAND_CANDIDATES) {
        list.splice(at, 0, sampleId);
        if (list.length > BAND_CANDIDATES) list.pop();
      }
    }
  }

  /**
   * The candidate ids for a sample's band keys, as one query over all bands would give them: keys in
   * ascending order, each key's ids in order, the first BAND_CANDIDATES rows, then distinct ids in order.
   */
  private candidates(keys: number[]): string[] {
    const rows: string[] = [];
    for (const k of [...new Set(keys)].sort((a, b) => a - b)) {
      let list = this.bandCache.get(k);
      if (!list) list = this.byBand.all(k) as string[];
      remember(this.bandCache, k, list);
      for (const id of list) {
        if (rows.length >= BAND_CANDIDATES) break;
        rows.push(id);
      }
      if (rows.length >= BAND_CANDIDATES) break;
    }
    return [...new Set(rows)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** The samples of one decision share their conversation and file snapshot (up to 20,000 characters): normalize those once. */
  private normalized(text: string): string {
    if (text.length < 64) return normalizeText(text);
    let n = this.normalizedCache.get(text);
    if (n === undefined) {
      if (this.normalizedCache.size >= 32) this.normalizedCache.clear();
      n = normalizeText(text);
      this.normalizedCache.set(text, n);
    }
    return n;
  }

  private signature(id: string): { clusterId: string; signature: Uint32Array } | null {
    let c = this.signatureCache.get(id);
    if (c === undefined) {
      const row = this.signatureOf.get(id) as { cluster_id: string; signature: Buffer } | undefined;
      c = row ? { clusterId: row.cluster_id, signature: blobToSignature(row.signature) } : null;
    }
    remember(this.signatureCache, id, c);
    return c;
  }
}
