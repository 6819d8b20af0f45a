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
  private readonly insertSignature;

  constructor(private readonly db: DB, private readonly cfg: DatasetCollectionConfig['dedupe']) {
    this.byFingerprint = db.prepare(
      // any member will do: exact duplicates all join the first one's cluster
      'SELECT id, cluster_id FROM dataset_samples WHERE fingerprint = ? AND sample_type = ? LIMIT 1',
    );
    this.byBand = db.prepare(
      `SELECT m.sample_id AS id, m.cluster_id, m.signature AS minhash FROM dataset_lsh_bands b
       JOIN dataset_minhash m ON m.sample_id = b.sample_id WHERE b.band_key = ? LIMIT 8`,
    );
    this.insertBand = db.prepare('INSERT OR IGNORE INTO dataset_lsh_bands (band_key, sample_id) VALUES (?, ?)');
    this.insertSignature = db.prepare('INSERT OR REPLACE INTO dataset_minhash (sample_id, cluster_id, signature) VALUES (?, ?, ?)');
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
      // a same-sample match settles the cluster; further bands would only add related ids
      if (best) break;
    }
    const relatedSampleIds = [...related.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([id]) => id);
    if (best) return { ...base, clusterId: best.cluster, duplicateOf: best.id, similarity: best.sim, relatedSampleIds };
    return { ...base, clusterId: sampleId, relatedSampleIds };
  }

  /** Indexes a stored sample so later samples find it. */
  index(sampleId: string, a: ClusterAssignment): void {
    this.insertSignature.run(sampleId, a.clusterId, a.signature);
    for (const k of a.bandKeys) this.insertBand.run(k, sampleId);
  }
}
