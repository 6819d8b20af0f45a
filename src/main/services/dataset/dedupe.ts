// Cluster assignment for a new sample: exact fingerprint first, then MinHash LSH candidates.
import type { DB } from '../../db/connection';
import type { DatasetCollectionConfig } from './config';
import { forEachText } from './privacy';
import { LSH_BANDS, bandKeys, blobToSignature, fingerprintNormalized, minhashNormalized, normalizeText, signatureToBlob, similarity } from './similarity';

const keysPlaceholders = Array.from({ length: LSH_BANDS }, () => '?').join(', ');

const ID_FIELDS = /(^|\.)(conversationId|turnNumber)$/;

/** The texts that make a sample what it is (ids excluded, so re-collections of one text match). */
export function sampleTexts(content: unknown): string[] {
  const parts: string[] = [];
  forEachText(content, (field, text) => {
    if (!ID_FIELDS.test(field)) parts.push(text);
  });
  return parts;
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
  private readonly insertBand;
  private readonly insertSignature;

  constructor(private readonly db: DB, private readonly cfg: DatasetCollectionConfig['dedupe']) {
    if (!db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'dataset_minhash'").get()) ensureDedupeSchema(db);
    this.byFingerprint = db.prepare(
      // any member will do: exact duplicates all join the first one's cluster
      'SELECT id, cluster_id FROM dataset_samples WHERE fingerprint = ? AND sample_type = ? LIMIT 1',
    );
    // one statement for all bands; only cluster leaders are indexed, so each candidate is a cluster
    this.byBand = db.prepare(
      `SELECT m.sample_id AS id, m.cluster_id, m.signature AS minhash FROM dataset_minhash m
       WHERE m.sample_id IN (SELECT b.sample_id FROM dataset_lsh_bands b WHERE b.band_key IN (${keysPlaceholders}) LIMIT 32)`,
    );
    this.insertBand = db.prepare('INSERT OR IGNORE INTO dataset_lsh_bands (band_key, sample_id) VALUES (?, ?)');
    this.insertSignature = db.prepare('INSERT OR REPLACE INTO dataset_minhash (sample_id, cluster_id, signature) VALUES (?, ?, ?)');
  }

  assign(sampleId: string, sampleType: string, content: unknown): ClusterAssignment {
    const texts = sampleTexts(content);
    const normalized = texts.map(normalizeText);
    const fp = fingerprintNormalized([normalizeText(sampleType), ...normalized]);
    const sig = minhashNormalized(normalized.filter((t, i) => texts[i] !== sampleType).join(' '));
    const keys = bandKeys(sig, sampleType);
    const base = { fingerprint: fp, signature: signatureToBlob(sig), bandKeys: keys, relatedSampleIds: [] as string[] };
    const exact = this.byFingerprint.get(fp, sampleType) as { id: string; cluster_id: string | null } | undefined;
    if (exact) return { ...base, clusterId: exact.cluster_id ?? exact.id, duplicateOf: exact.id, similarity: 1 };

    let best: { id: string; cluster: string; sim: number } | undefined;
    const related = new Map<string, number>();
    for (const c of this.byBand.all(...keys) as { id: string; cluster_id: string; minhash: Buffer }[]) {
      const sim = similarity(sig, blobToSignature(c.minhash));
      if (sim >= this.cfg.sameThreshold) {
        if (!best || sim > best.sim) best = { id: c.id, cluster: c.cluster_id, sim };
      } else if (sim >= this.cfg.relatedThreshold) {
        related.set(c.id, sim);
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
    for (const k of a.bandKeys) this.insertBand.run(k, sampleId);
  }
}
