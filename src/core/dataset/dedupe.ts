// Cluster assignment for a new sample: exact fingerprint first, then MinHash LSH candidates confirmed
// with an exact Jaccard. Both work on what the record teaches (the judged turn and its target),
// redacted, never on the shared context window: consecutive turns share most of their context.
import type { DB } from '../db/connection';
import type { DatasetCollectionConfig } from './config';
import { taskOf } from './formats';
import { forEachText } from './privacy';
import type { Message, SampleContent } from './types';
import {
  LSH_BANDS,
  bandKeys,
  blobToSignature,
  fingerprintNormalized,
  jaccardOfShingles,
  minhashNormalized,
  normalizeText,
  signatureToBlob,
  similarity,
  unitShingles,
} from './similarity';

/** Below relatedThreshold minus this, a MinHash estimate rules the pair out without the exact Jaccard. */
const ESTIMATE_MARGIN = 0.3;
/** At most this many band rows are compared per new sample, so a crowded band stays cheap. */
const BAND_CANDIDATES = 64;
/** Entries per cache (least recently used go first; a miss reads the database): tens of MB at most. */
const CACHE_LIMIT = 100_000;
/**
 * Cached leaders carry their unit and its shingle codes (about 2 KB each): fewer of them keep a long
 * collection's live heap flat (a miss reads the leader back and rebuilds its codes).
 */
const LEADER_CACHE_LIMIT = 20_000;

const ID_FIELDS = /(^|\.)(conversationId|turnNumber)$/;

/** The texts that make a sample what it is (ids excluded, so re-collections of one text match). */
export function sampleTexts(content: unknown): string[] {
  const parts: string[] = [];
  forEachText(content, (field, text) => {
    if (!ID_FIELDS.test(field)) parts.push(text);
  });
  return parts;
}

/** The judged turn: the last user message and the agent reply after it. */
function judgedTurn(conversation: Message[]): string {
  let i = conversation.length - 1;
  while (i >= 0 && conversation[i].role !== 'user') i--;
  if (i < 0) return '';
  const reply = conversation.slice(i + 1).find((m) => m.role === 'agent')?.message ?? '';
  return `${conversation[i].message}\n${reply}`;
}

/**
 * What a record teaches, as one text: the step, the judged input (the turn the gate judged: user
 * message and agent reply, or the fact and file the guardian judged) and the target (decision and
 * fact, or the action). The context window and the reasons are left out: the window is shared by
 * different lessons of consecutive turns, and reasons vary between copies of one lesson.
 */
export function teachingUnit(content: SampleContent): string {
  const t = taskOf(content);
  if (content.type === 'write_guardian_decision') {
    return `guardian\n${content.candidateFact}\n${content.targetFile}\n${t.decision ?? ''} ${t.targetFile ?? ''}`;
  }
  const conv = content.type === 'annotated_turn' ? content.context : content.conversation;
  const judged = content.type === 'annotated_turn' ? `${content.memoryGate.input.currentUserMessage}\n${content.memoryGate.input.currentAgentReply}` : judgedTurn(conv);
  const step = content.type === 'annotated_turn' ? 'turn' : 'gate';
  return `${step}\n${judged}\n${t.decision ?? ''} ${t.fact ?? ''}`;
}

/** The numbers a unit states, in order: two lessons that state different numbers are never the same. */
const numbersOf = (unit: string) => (unit.match(/\d+/g) ?? []).join(' ');

/** Dedupe compares only records of one kind: gate samples (positive and negative alike), guardian samples, turns. */
const namespaceOf = (unit: string) => unit.slice(0, unit.indexOf('\n'));

/** Least-recently-used bound: a Map iterates in insertion order, so the first key is the oldest. */
function remember<K, V>(map: Map<K, V>, key: K, value: V, limit = CACHE_LIMIT): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value as K);
}

export interface ClusterAssignment {
  fingerprint: string;
  /** The normalized teaching unit, stored for the exact check of later candidates. */
  unit: string;
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

interface Leader {
  clusterId: string;
  signature: Uint32Array;
  unit: string;
  /** The unit's shingles, built on first comparison and kept with the cached leader. */
  shingles?: Float64Array;
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
  private readonly signatureCache = new Map<string, Leader | null>();
  /**
   * A dry run stores nothing, yet must find the duplicates the real run finds among the samples it
   * would add: index() keeps those in memory instead (unbounded: they are what the run would store).
   */
  private readonly planned: { byFingerprint: Map<string, { id: string; clusterId: string }>; bands: Map<number, string[]>; leaders: Map<string, Leader> } | null;

  constructor(private readonly db: DB, private readonly cfg: DatasetCollectionConfig['dedupe'], opts: { dryRun?: boolean } = {}) {
    this.planned = opts.dryRun ? { byFingerprint: new Map(), bands: new Map(), leaders: new Map() } : null;
    if (!db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'dataset_minhash'").get()) ensureDedupeSchema(db);
    this.byFingerprint = db.prepare(
      // any member will do: exact duplicates all join the first one's cluster
      'SELECT id, cluster_id FROM dataset_samples WHERE fingerprint = ? LIMIT 1',
    );
    // only cluster leaders are indexed, so each candidate is a cluster
    this.byBand = db.prepare(`SELECT sample_id FROM dataset_lsh_bands WHERE band_key = ? ORDER BY sample_id LIMIT ${BAND_CANDIDATES}`).pluck();
    this.signatureOf = db.prepare('SELECT cluster_id, signature, unit FROM dataset_minhash WHERE sample_id = ?');
    // all of a sample's bands in one statement: one call into SQLite instead of eight
    this.insertBands = db.prepare(
      `INSERT OR IGNORE INTO dataset_lsh_bands (band_key, sample_id) VALUES ${Array.from({ length: LSH_BANDS }, () => '(?, ?)').join(', ')}`,
    );
    this.insertSignature = db.prepare('INSERT OR REPLACE INTO dataset_minhash (sample_id, cluster_id, signature, unit) VALUES (?, ?, ?, ?)');
  }

  /** content: the content as it will be exported (redacted), so copies that differ only in a secret match. */
  assign(sampleId: string, content: SampleContent): ClusterAssignment {
    const unit = normalizeText(teachingUnit(content));
    const namespace = namespaceOf(teachingUnit(content));
    const fp = fingerprintNormalized([unit]);
    const sig = minhashNormalized(unit);
    const keys = bandKeys(sig, namespace);
    const base = { fingerprint: fp, unit, signature: signatureToBlob(sig), bandKeys: keys, relatedSampleIds: [] as string[] };
    const exact = this.byFingerprint.get(fp) as { id: string; cluster_id: string | null } | undefined;
    if (exact) return { ...base, clusterId: exact.cluster_id ?? exact.id, duplicateOf: exact.id, similarity: 1 };
    const plannedExact = this.planned?.byFingerprint.get(fp);
    if (plannedExact) return { ...base, clusterId: plannedExact.clusterId, duplicateOf: plannedExact.id, similarity: 1 };

    let best: { id: string; cluster: string; sim: number } | undefined;
    const related = new Map<string, number>();
    let mine: Float64Array | undefined;
    for (const id of this.candidates(keys)) {
      const c = this.signature(id);
      if (!c) continue;
      // the estimate only proposes; the thresholds apply to the exact Jaccard of the two units. A
      // candidate whose estimate is far below the related threshold (about five standard deviations of
      // a 64-hash estimate) is not worth the exact check: most candidates of a crowded band are such.
      if (similarity(sig, c.signature) < this.cfg.relatedThreshold - ESTIMATE_MARGIN) continue;
      mine ??= unitShingles(unit);
      c.shingles ??= unitShingles(c.unit);
      const sim = jaccardOfShingles(mine, c.shingles);
      // one digit is a few shingles of a short unit, yet "budget 50k" and "budget 60k" are different facts
      if (sim >= this.cfg.sameThreshold && numbersOf(unit) === numbersOf(c.unit)) {
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
    if (this.planned) return this.plan(sampleId, a);
    if (a.clusterId !== sampleId) return;
    this.insertSignature.run(sampleId, a.clusterId, a.signature, a.unit);
    remember(this.signatureCache, sampleId, { clusterId: a.clusterId, signature: blobToSignature(a.signature), unit: a.unit }, LEADER_CACHE_LIMIT);
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

  /** Dry run: what index() would store, kept in memory. */
  private plan(sampleId: string, a: ClusterAssignment): void {
    const planned = this.planned!;
    if (!planned.byFingerprint.has(a.fingerprint)) planned.byFingerprint.set(a.fingerprint, { id: sampleId, clusterId: a.clusterId });
    if (a.clusterId !== sampleId) return;
    planned.leaders.set(sampleId, { clusterId: a.clusterId, signature: blobToSignature(a.signature), unit: a.unit });
    for (const k of a.bandKeys) {
      const list = planned.bands.get(k);
      if (list) list.push(sampleId);
      else planned.bands.set(k, [sampleId]);
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
    // A dry run's planned leaders are candidates too (the real run would have stored them by now).
    if (this.planned) for (const k of keys) for (const id of this.planned.bands.get(k) ?? []) rows.push(id);
    return [...new Set(rows)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  private signature(id: string): Leader | null {
    const planned = this.planned?.leaders.get(id);
    if (planned) return planned;
    let c = this.signatureCache.get(id);
    if (c === undefined) {
      const row = this.signatureOf.get(id) as { cluster_id: string; signature: Buffer; unit: string | null } | undefined;
      // a leader of the old scheme (no unit) cannot be compared: reclusterSamples rebuilds those
      c = row && row.unit !== null ? { clusterId: row.cluster_id, signature: blobToSignature(row.signature), unit: row.unit } : null;
    }
    remember(this.signatureCache, id, c, LEADER_CACHE_LIMIT);
    return c;
  }
}

/** True when some stored signature predates the teaching-unit scheme (or no leader is indexed yet while samples exist). */
export function clustersAreStale(db: DB): boolean {
  return Boolean(db.prepare('SELECT 1 FROM dataset_minhash WHERE unit IS NULL LIMIT 1').get());
}

/**
 * Re-clusters every sample from its exported (redacted) content, in collection order: the workspaces
 * clustered by the old whole-sample scheme merged different facts. Labels keep everything but the
 * duplicate links, which are recomputed. One transaction; returns how many samples now duplicate another.
 */
export function reclusterSamples(db: DB, cfg: DatasetCollectionConfig['dedupe']): { samples: number; duplicates: number } {
  let samples = 0;
  let duplicates = 0;
  db.transaction(() => {
    db.exec('DELETE FROM dataset_lsh_bands; DELETE FROM dataset_minhash;');
    // clear fingerprints first, or the exact lookup would find a sample's own stale row
    db.exec('UPDATE dataset_samples SET fingerprint = NULL');
    const dedupe = new Deduper(db, cfg);
    const update = db.prepare('UPDATE dataset_samples SET fingerprint = ?, cluster_id = ?, labels = ? WHERE id = ?');
    const page = db.prepare(`SELECT rowid AS r, id, content, pii_redacted_content AS redacted, labels FROM dataset_samples
      WHERE rowid > ? ORDER BY rowid LIMIT 500`);
    let after = 0;
    for (;;) {
      const rows = page.all(after) as { r: number; id: string; content: string; redacted: string | null; labels: string | null }[];
      if (!rows.length) break;
      after = rows[rows.length - 1].r;
      for (const row of rows) {
        const a = dedupe.assign(row.id, JSON.parse(row.redacted ?? row.content) as SampleContent);
        const labels = (row.labels ? JSON.parse(row.labels) : {}) as Record<string, unknown>;
        delete labels.duplicateOf;
        delete labels.relatedSampleIds;
        if (a.duplicateOf) {
          labels.duplicateOf = a.duplicateOf;
          duplicates++;
        }
        if (a.relatedSampleIds.length) labels.relatedSampleIds = a.relatedSampleIds;
        update.run(a.fingerprint, a.clusterId, JSON.stringify(labels), row.id);
        dedupe.index(row.id, a);
        samples++;
      }
    }
  }).immediate();
  return { samples, duplicates };
}
