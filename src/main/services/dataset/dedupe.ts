// Cluster assignment for a new sample: exact fingerprint first, then MinHash LSH candidates.
import type { DB } from '../../db/connection';
import type { DatasetCollectionConfig } from './config';
import { forEachText } from './privacy';
import { bandKeys, blobToSignature, fingerprint, minhash, signatureToBlob, similarity } from './similarity';

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

export class Deduper {
  private readonly byFingerprint;
  private readonly byBand;
  private readonly insertBand;

  constructor(private readonly db: DB, private readonly cfg: DatasetCollectionConfig['dedupe']) {
    this.byFingerprint = db.prepare(
      'SELECT id, cluster_id FROM dataset_samples WHERE fingerprint = ? AND sample_type = ? ORDER BY rowid LIMIT 1',
    );
    this.byBand = db.prepare(
      `SELECT s.id, s.cluster_id, s.minhash FROM dataset_lsh_bands b JOIN dataset_samples s ON s.id = b.sample_id
       WHERE b.band_key = ? LIMIT 12`,
    );
    this.insertBand = db.prepare('INSERT OR IGNORE INTO dataset_lsh_bands (band_key, sample_id) VALUES (?, ?)');
  }

  assign(sampleId: string, sampleType: string, content: unknown): ClusterAssignment {
    const texts = sampleTexts(content);
    const fp = fingerprint([sampleType, ...texts]);
    const sig = minhash(texts.filter((t) => t !== sampleType).join('\n'));
    const keys = bandKeys(sig, sampleType);
    const base = { fingerprint: fp, signature: signatureToBlob(sig), bandKeys: keys, relatedSampleIds: [] as string[] };
    const exact = this.byFingerprint.get(fp, sampleType) as { id: string; cluster_id: string | null } | undefined;
    if (exact) return { ...base, clusterId: exact.cluster_id ?? exact.id, duplicateOf: exact.id, similarity: 1 };

    let best: { id: string; cluster: string; sim: number } | undefined;
    const related = new Map<string, number>();
    const seen = new Set<string>();
    for (const key of keys) {
      for (const c of this.byBand.all(key) as { id: string; cluster_id: string | null; minhash: Buffer | null }[]) {
        if (seen.has(c.id) || !c.minhash) continue;
        seen.add(c.id);
        const sim = similarity(sig, blobToSignature(c.minhash));
        if (sim >= this.cfg.sameThreshold) {
          if (!best || sim > best.sim) best = { id: c.id, cluster: c.cluster_id ?? c.id, sim };
        } else if (sim >= this.cfg.relatedThreshold) {
          related.set(c.id, sim);
        }
      }
    }
    const relatedSampleIds = [...related.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([id]) => id);
    if (best) return { ...base, clusterId: best.cluster, duplicateOf: best.id, similarity: best.sim, relatedSampleIds };
    return { ...base, clusterId: sampleId, relatedSampleIds };
  }

  /** Indexes a stored sample's bands so later samples find it. */
  index(sampleId: string, keys: number[]): void {
    for (const k of keys) this.insertBand.run(k, sampleId);
  }
}
