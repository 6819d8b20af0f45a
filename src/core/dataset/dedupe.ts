// Cluster assignment for a new sample: exact fingerprint first, then MinHash LSH candidates confirmed
// with an exact Jaccard. Both work on what the record teaches (the judged turn and its target),
// redacted, never on the shared context window: consecutive turns share most of their context.
import type { DB } from '../db/connection';
import {
  clearDedupeIndex,
  copyBandRowsToGeneration,
  countBandGenerations,
  countLeadersAndBandRows,
  deleteBandGenerationsBelow,
  ensureDedupeSchema,
  findLeaderSignature,
  findSampleByFingerprint,
  hasSignaturesWithoutUnit,
  insertBandRows,
  iterateBandKeys,
  iterateFingerprints,
  listBandLeaders,
  listLeadersPage,
  nextBandGeneration,
  bandRowExists,
  deleteOrphanBandRows,
  listSamplesForDedupe,
  updateSampleCluster,
  upsertLeaderSignature,
} from '../db/repositories/collectDedupe';
import { BloomFilter, bandKeyHashes, hexHashes } from './collect/bloom';
import { PendingBands } from './collect/pendingBands';
import type { DatasetCollectionConfig } from './config';
import { RecentCache } from './recentCache';
import { sortedIndex } from './sortedIndex';
import { taskOf } from './formats';
import { forEachText } from './privacy';
import type { Message, SampleContent } from './types';
import {
  LSH_BANDS,
  bandKeys,
  blobToSignature,
  fingerprintNormalized,
  minhashNormalized,
  normalizeText,
  signatureToBlob,
  ShingleIds,
} from './similarity';

/** At most this many band rows are compared per new sample, so a crowded band stays cheap. */
const BAND_CANDIDATES = 64;
/** Entries per cache (least recently used go first; a miss reads the database): tens of MB at most. */
const CACHE_LIMIT = 100_000;
/**
 * Cached leaders carry their unit and its shingle codes (about 2 KB each): fewer of them keep a long
 * collection's live heap flat (a miss reads the leader back and rebuilds its codes).
 */
const LEADER_CACHE_LIMIT = 20_000;
/**
 * Band rows wait in memory and are written sorted, this many at a time and at the end of a run:
 * written one leader at a time, their random keys dirtied a new index page per row in every
 * transaction. Each flush is a new generation of the band table (migration 0182), after every stored
 * one, so it appends instead of rewriting the table. PendingBands is allocated once for BAND_FLUSH_ROWS
 * plus the rows of the decision that reaches it (the driver ends its transaction there: bandFlushDue):
 * 450,048 rows of 14 bytes, and at most 9 MB more for the keys' slots and a flush's sorted keys. At
 * 900,000 rows they took about 14 MB more, and a 1,000,000-decision collection peaked at 254 MiB (aim:
 * under 250); at 450,000 a run writes twice the generations, each one more index probe for a band
 * lookup the Bloom filter lets through, and its CPU per decision measured the same (1,035 µs both).
 */
const BAND_FLUSH_ROWS = 450_000;
/**
 * Rows past BAND_FLUSH_ROWS before the driver flushes: one decision's, up to 3 new leaders of LSH_BANDS
 * rows (collect.ts SAMPLES_PER_DECISION). A whole transaction's, 144,000, took 2 MB more.
 */
const PENDING_BAND_HEADROOM = 3 * LSH_BANDS;
/** A band list this long is crowded: its leaders are kept with it (leadersOf). */
const CROWDED = 16;
/** Crowded lists whose leaders are kept at most: 16,384 leaders (about 16 MB) even if none were shared. */
const CROWDED_LISTS = 256;
/** Lookups a new sample makes (a fingerprint and 16 bands) over the seeding cost per stored key, about. */
const SEED_PAYOFF = 250;

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
  const i = conversation.findLastIndex((m) => m.role === 'user');
  const user = conversation[i];
  if (!user) return '';
  const reply = conversation.slice(i + 1).find((m) => m.role === 'agent')?.message ?? '';
  return `${user.message}\n${reply}`;
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
  const judged =
    content.type === 'annotated_turn'
      ? `${content.memoryGate.input.currentUserMessage}\n${content.memoryGate.input.currentAgentReply}`
      : judgedTurn(conv);
  const step = content.type === 'annotated_turn' ? 'turn' : 'gate';
  return `${step}\n${judged}\n${t.decision ?? ''} ${t.fact ?? ''}`;
}

/** The numbers a unit states, in order: two lessons that state different numbers are never the same. */
const numbersOf = (unit: string) => (unit.match(/\d+/g) ?? []).join(' ');

/** Dedupe compares only records of one kind: gate samples (positive and negative alike), guardian samples, turns. */
const namespaceOf = (unit: string) => unit.slice(0, unit.indexOf('\n'));

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

interface Leader {
  clusterId: string;
  unit: string;
  /** The unit's shingles as ShingleIds ids, built on first comparison and kept with the cached leader. */
  shingles?: Int32Array;
  /** The ShingleIds generation `shingles` belongs to. */
  shingleGeneration?: number;
  /** The numbers the unit states (numbersOf), likewise. */
  numbers?: string;
}

const NO_IDS: string[] = [];
/** Related leaders kept in a sample's labels. */
const RELATED_LIMIT = 5;

function duplicate(a: ClusterAssignment, clusterId: string, of: string, sim: number): ClusterAssignment {
  a.clusterId = clusterId;
  a.duplicateOf = of;
  a.similarity = sim;
  return a;
}

/**
 * The five most similar related leaders, most similar first and, at equal similarity, in the order
 * they were met: what a stable sort of all of them by similarity would keep, without keeping them all.
 */
class TopRelated {
  private readonly idList: string[] = [];
  private readonly sims: number[] = [];

  add(id: string, sim: number): void {
    let at = this.sims.length;
    while (at > 0 && this.sims[at - 1]! < sim) at--; // at - 1 < length
    if (at >= RELATED_LIMIT) return;
    this.idList.splice(at, 0, id);
    this.sims.splice(at, 0, sim);
    if (this.idList.length > RELATED_LIMIT) {
      this.idList.pop();
      this.sims.pop();
    }
  }

  ids(): string[] {
    return this.idList.length ? this.idList : NO_IDS;
  }
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The namespace of a stored (normalized) unit: its first word, as namespaceOf gives it before normalizing. */
const namespaceOfNormalized = (unit: string) => unit.slice(0, unit.indexOf(' '));

export interface DeduperOptions {
  dryRun?: boolean;
  /** Samples this run may add, to size its filters. */
  expectedSamples?: number;
}

/**
 * Leader clustering of a run's samples. What a run looks up most is absent (a new sample's fingerprint
 * and band keys), so Bloom filters over the stored and this run's keys answer most lookups without
 * SQLite; band rows are kept in memory and written sorted (flushBands). The answers are the ones the
 * stored index gives: every "maybe" still asks the database and the pending rows.
 */
export class Deduper {
  /** One run looks up the same band keys and leaders over and over: LRU caches, kept in step by index(). */
  private readonly bandCache = new RecentCache<number, string[]>(CACHE_LIMIT / 2);
  private readonly signatureCache = new RecentCache<string, Leader | null>(LEADER_CACHE_LIMIT / 2);
  private readonly fingerprints: BloomFilter;
  private readonly bands: BloomFilter;
  private readonly shingleIds = new ShingleIds();
  /** The leaders of crowded band lists, by list (leadersOf). */
  private readonly crowded = new Map<string[], (Leader | null)[]>();
  /** The unit last marked in shingleIds and its ids, for index() of the same sample. */
  private lastMarked: { unit: string; ids: Int32Array; generation: number } | undefined;
  /** Band rows of this run's leaders not yet written. */
  private readonly pendingBands = new PendingBands(BAND_FLUSH_ROWS + PENDING_BAND_HEADROOM);
  /**
   * A flush that spans several transactions: the pending keys in order, how far it got and the rows it
   * wrote. The rows stay pending until the flush ends (a lookup meanwhile would find them twice, and
   * bandLeaders keeps distinct ids).
   */
  private flushing: { keys: Float64Array; at: number; written: number; gen: number } | undefined;
  /**
   * A dry run stores nothing, yet must find the duplicates the real run finds among the samples it
   * would add: index() keeps those in memory instead (unbounded: they are what the run would store).
   */
  private readonly planned: {
    byFingerprint: Map<string, { id: string; clusterId: string }>;
    bands: Map<number, string[]>;
    leaders: Map<string, Leader>;
  } | null;

  constructor(
    private readonly db: DB,
    private readonly cfg: DatasetCollectionConfig['dedupe'],
    opts: DeduperOptions = {},
  ) {
    this.planned = opts.dryRun ? { byFingerprint: new Map(), bands: new Map(), leaders: new Map() } : null;
    ensureDedupeSchema(db);
    const stored = countLeadersAndBandRows(db);
    const expected = opts.expectedSamples ?? 10_000;
    // Seeding reads every stored key (about 0.3 µs each) to save about 5 µs per lookup: worth it for a
    // run that adds samples in some proportion to the store, not for one decision (a missed write).
    const seed = expected * SEED_PAYOFF >= stored.leaders * (LSH_BANDS + 1);
    this.fingerprints = new BloomFilter(seed ? expected + stored.leaders * 2 : 0);
    this.bands = new BloomFilter(seed ? (expected + stored.leaders) * LSH_BANDS : 0);
    if (seed) {
      for (const fp of iterateFingerprints(db)) this.fingerprints.add(...hexHashes(fp));
      for (const key of iterateBandKeys(db)) this.bands.add(...bandKeyHashes(key));
    } else {
      this.fingerprints.saturate();
      this.bands.saturate();
    }
  }

  /** content: the content as it will be exported (redacted), so copies that differ only in a secret match. */
  assign(sampleId: string, content: SampleContent): ClusterAssignment {
    const raw = teachingUnit(content);
    const unit = normalizeText(raw);
    const fp = fingerprintNormalized([unit]);
    const sig = minhashNormalized(unit);
    const keys = bandKeys(sig, namespaceOf(raw));
    const a: ClusterAssignment = {
      fingerprint: fp,
      unit,
      signature: signatureToBlob(sig),
      bandKeys: keys,
      relatedSampleIds: NO_IDS,
      clusterId: sampleId,
    };
    // filled in place, not spread: one object per sample
    const exact = this.fingerprints.mayContain(...hexHashes(fp)) ? findSampleByFingerprint(this.db, fp) : undefined;
    const plannedExact = exact ? undefined : this.planned?.byFingerprint.get(fp);
    if (exact) return duplicate(a, exact.cluster_id ?? exact.id, exact.id, 1);
    if (plannedExact) return duplicate(a, plannedExact.clusterId, plannedExact.id, 1);
    const near = this.nearest(unit, keys);
    a.relatedSampleIds = near.related;
    return near.best ? duplicate(a, near.best.cluster, near.best.id, near.best.sim) : a;
  }

  /** The closest same-lesson leader among the band candidates, and up to five related ones. */
  private nearest(unit: string, keys: number[]): { best?: { id: string; cluster: string; sim: number }; related: string[] } {
    let best: { id: string; cluster: string; sim: number } | undefined;
    const related = new TopRelated();
    let mine: Int32Array | undefined;
    let myNumbers: string | undefined;
    const shingles = this.shingleIds;
    const floor = Math.min(this.cfg.sameThreshold, this.cfg.relatedThreshold);
    const { ids, shared } = this.candidates(keys);
    const leaders = this.leadersOf(ids, shared);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!; // i < length
      const c = leaders[i];
      if (!c) continue;
      // the band signature only proposes; the thresholds apply to the exact Jaccard of the two units,
      // which ShingleIds computes in about the time a 64-hash estimate took, so there is no estimate step
      if (!mine) {
        mine = shingles.mark(unit);
        this.lastMarked = { unit, ids: mine, generation: shingles.generation };
      }
      if (c.shingleGeneration !== shingles.generation || !c.shingles) {
        c.shingles = shingles.idsOf(c.unit);
        c.shingleGeneration = shingles.generation;
      }
      // the Jaccard is at most the smaller set over the larger (the same division when one holds the
      // other): below both thresholds, the count cannot matter
      const large = Math.max(mine.length, c.shingles.length);
      if (large && Math.min(mine.length, c.shingles.length) / large < floor) continue;
      const sim = shingles.jaccardWithMarked(c.shingles);
      // one digit is a few shingles of a short unit, yet "budget 50k" and "budget 60k" are different facts
      if (sim >= this.cfg.sameThreshold && (myNumbers ??= numbersOf(unit)) === (c.numbers ??= numbersOf(c.unit))) {
        if (!best || sim > best.sim) best = { id, cluster: c.clusterId, sim };
      } else if (sim >= this.cfg.relatedThreshold) {
        related.add(id, sim);
      }
    }
    return { best, related: related.ids() };
  }

  /** Records a stored sample; one that opened a cluster is indexed, so later samples find it (leader clustering). */
  index(sampleId: string, a: ClusterAssignment): void {
    if (this.planned) return this.plan(sampleId, a);
    this.fingerprints.add(...hexHashes(a.fingerprint));
    if (a.clusterId !== sampleId) return;
    upsertLeaderSignature(this.db, sampleId, a.clusterId, a.signature, a.unit);
    // a new leader's ids were made when it was compared with its candidates: keep them with it
    const m = this.lastMarked;
    const made = m?.unit === a.unit ? { shingles: m.ids, shingleGeneration: m.generation } : {};
    this.signatureCache.set(sampleId, { clusterId: a.clusterId, unit: a.unit, ...made });
    this.pendingBands.add(sampleId, a.bandKeys);
    for (const k of a.bandKeys) {
      this.bands.add(...bandKeyHashes(k));
      const list = this.bandCache.peek(k);
      if (!list) continue;
      // keep the cached list exactly what the query would return: ids in order, at most BAND_CANDIDATES
      // (a full list's last id is checked first: a new id, a hash, usually goes past it)
      if (list.length >= BAND_CANDIDATES && list[list.length - 1]! < sampleId) continue; // not empty: full
      const at = sortedIndex(list, sampleId);
      if (list[at] === sampleId) continue;
      if (at < BAND_CANDIDATES) {
        this.crowded.delete(list);
        list.splice(at, 0, sampleId);
        if (list.length > BAND_CANDIDATES) list.pop();
      }
    }
  }

  /** Band rows waiting to be written (the driver flushes at BAND_FLUSH_ROWS and at the end). */
  get pendingBandRows(): number {
    return this.pendingBands.rows - (this.flushing?.written ?? 0);
  }

  /** True once BAND_FLUSH_ROWS wait: the driver ends its transaction and flushes them. */
  get bandFlushDue(): boolean {
    return this.pendingBandRows >= BAND_FLUSH_ROWS;
  }

  /**
   * Writes pending band rows in key order, whole keys until at least maxRows rows, and returns how many
   * rows still wait. Call inside a write transaction; a driver that must let other writers in calls it
   * in several transactions, and the rows still go in key order, each index page dirtied once.
   */
  flushBands(maxRows = Infinity): number {
    if (!this.pendingBands.rows) return 0;
    const f = (this.flushing ??= { keys: this.pendingBands.sortedKeys(), at: 0, written: 0, gen: nextBandGeneration(this.db) });
    const keys: number[] = [];
    const ids: string[] = [];
    while (f.at < f.keys.length && ids.length < maxRows) this.pendingBands.rowsOf(f.keys[f.at++]!, keys, ids); // at < length
    insertBandRows(this.db, f.gen, keys, ids);
    f.written += ids.length;
    if (f.at === f.keys.length) {
      this.pendingBands.clear();
      this.flushing = undefined;
    }
    return this.pendingBandRows;
  }

  /** Dry run: what index() would store, kept in memory. */
  private plan(sampleId: string, a: ClusterAssignment): void {
    const planned = this.planned!;
    if (!planned.byFingerprint.has(a.fingerprint)) planned.byFingerprint.set(a.fingerprint, { id: sampleId, clusterId: a.clusterId });
    if (a.clusterId !== sampleId) return;
    planned.leaders.set(sampleId, { clusterId: a.clusterId, unit: a.unit });
    for (const k of a.bandKeys) {
      const list = planned.bands.get(k);
      if (list) list.push(sampleId);
      else planned.bands.set(k, [sampleId]);
    }
  }

  /** The first BAND_CANDIDATES leaders of one band by id: stored rows and this run's pending ones. */
  private bandLeaders(k: number): string[] {
    let list = this.bandCache.get(k);
    if (!list) {
      if (!this.bands.mayContain(...bandKeyHashes(k))) return NO_IDS;
      list = listBandLeaders(this.db, k, BAND_CANDIDATES);
      const pending = this.pendingBands.idsOf(k);
      if (pending) list = [...new Set([...list, ...pending])].sort(byId).slice(0, BAND_CANDIDATES);
      this.bandCache.set(k, list); // a hit needs no set: get() keeps it recent
    }
    return list;
  }

  /**
   * The candidate ids for a sample's band keys, as one query over all bands would give them: keys in
   * ascending order, each key's ids in order, the first BAND_CANDIDATES rows, then distinct ids in order.
   * shared: the ids are one cached band list itself (read only), not a copy.
   */
  private candidates(keys: number[]): { ids: string[]; shared: boolean } {
    const rows: string[] = [];
    let bands = 0;
    let only: string[] = NO_IDS;
    // bandKeys gives distinct keys in ascending order (the band index is in the high bits)
    for (const k of keys) {
      const list = this.bandLeaders(k);
      if (list.length) {
        bands++;
        only = list;
      }
      for (const id of list) {
        if (rows.length >= BAND_CANDIDATES) break;
        rows.push(id);
      }
      if (rows.length >= BAND_CANDIDATES) break;
    }
    // A dry run's planned leaders are candidates too (the real run would have stored them by now).
    if (this.planned) for (const k of keys) for (const id of this.planned.bands.get(k) ?? []) rows.push(id);
    // One band's list is already distinct ids in order (and at most BAND_CANDIDATES): in a crowded
    // workspace the first band fills all the rows, and sorting them again cost as much as the lookups.
    if (bands === 1 && !this.planned) return { ids: only, shared: true };
    if (rows.length >= 2) {
      rows.sort(); // ids are strings: the default order is byId's, without a call per comparison
      let n = 1;
      for (let i = 1; i < rows.length; i++) if (rows[i] !== rows[n - 1]) rows[n++] = rows[i]!; // i < length
      rows.length = n;
    }
    return { ids: rows, shared: false };
  }

  /**
   * The leaders of candidate ids, in order. A crowded band list meets sample after sample (every copy of
   * a topic), so its leaders are kept by list: one lookup per sample instead of one per candidate, which
   * was a fifth of dedupe. index() drops a list it changes; CROWDED_LISTS bounds what is held.
   */
  private leadersOf(ids: string[], shared: boolean): (Leader | null)[] {
    const kept = shared ? this.crowded.get(ids) : undefined;
    if (kept) return kept;
    const leaders = ids.map((id) => this.signature(id));
    if (shared && ids.length >= CROWDED) {
      if (this.crowded.size >= CROWDED_LISTS) this.crowded.clear();
      this.crowded.set(ids, leaders);
    }
    return leaders;
  }

  private signature(id: string): Leader | null {
    const planned = this.planned?.leaders.get(id);
    if (planned) return planned;
    let c = this.signatureCache.get(id);
    if (c === undefined) {
      const row = findLeaderSignature(this.db, id);
      // a leader of the old scheme (no unit) cannot be compared: reclusterSamples rebuilds those
      c = row && row.unit !== null ? { clusterId: row.cluster_id, unit: row.unit } : null;
      this.signatureCache.set(id, c); // a hit needs no set: get() keeps it recent
    }
    return c;
  }
}

/** True when some stored signature predates the teaching-unit scheme. */
export function clustersAreStale(db: DB): boolean {
  return hasSignaturesWithoutUnit(db);
}

/** Generations a band lookup asks at most: past this many, a run's start merges them into one. */
const MAX_BAND_GENERATIONS = 12;
/** A merge copies the band keys of 1/1024th of the key space per statement, so each sort stays small. */
const MERGE_STEPS = 1_024;

/** Rewrites every band generation as one, in key order (one sequential write), when there are too many. */
function mergeBandGenerations(db: DB): void {
  if (countBandGenerations(db) <= MAX_BAND_GENERATIONS) return;
  const into = nextBandGeneration(db);
  // bandKeys puts the band index above a 32-bit hash: keys lie in [0, LSH_BANDS * 2^32)
  const step = (LSH_BANDS * 2 ** 32) / MERGE_STEPS;
  for (let i = 0; i < MERGE_STEPS; i++) {
    const from = i === 0 ? -Number.MAX_SAFE_INTEGER : i * step;
    const to = i === MERGE_STEPS - 1 ? Number.MAX_SAFE_INTEGER : (i + 1) * step;
    copyBandRowsToGeneration(db, into, from, to);
  }
  deleteBandGenerationsBelow(db, into);
}

/**
 * Brings the band index in line with the stored signatures. Too many generations are merged into one.
 * Deleted samples leave their band rows behind (migration 0176): more rows than leaders have are
 * removed. A run that stopped between its band flushes (a crash) left leaders without some rows: those
 * rows are rebuilt from their signatures, as a new generation. Cheap when complete: a few counts. Call
 * inside a write transaction.
 */
export function repairBandIndex(db: DB): number {
  mergeBandGenerations(db);
  const { leaders, bandRows } = countLeadersAndBandRows(db);
  const rows = bandRows > leaders * LSH_BANDS ? bandRows - deleteOrphanBandRows(db) : bandRows;
  if (rows >= leaders * LSH_BANDS) return 0;
  const missing: { k: number; id: string }[] = [];
  for (let after = '', page; (page = listLeadersPage(db, after, 1000)).length; after = page[page.length - 1]!.sample_id) {
    for (const l of page) {
      const keys = bandKeys(blobToSignature(l.signature), namespaceOfNormalized(l.unit));
      // a flush writes rows in key order and a leader's last band has its largest key: with that row
      // stored, the leader's other rows are too
      if (bandRowExists(db, keys[LSH_BANDS - 1]!, l.sample_id)) continue;
      // the rows a stopped flush did write stay in their generation: only the others are added
      for (const k of keys) if (!bandRowExists(db, k, l.sample_id)) missing.push({ k, id: l.sample_id });
    }
  }
  missing.sort((a, b) => a.k - b.k || byId(a.id, b.id));
  insertBandRows(
    db,
    nextBandGeneration(db),
    missing.map((r) => r.k),
    missing.map((r) => r.id),
  );
  return missing.length;
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
    // clear fingerprints first, or the exact lookup would find a sample's own stale row
    clearDedupeIndex(db);
    const dedupe = new Deduper(db, cfg);
    let after = 0;
    for (;;) {
      const rows = listSamplesForDedupe(db, after, 500);
      if (!rows.length) break;
      after = rows[rows.length - 1]!.r; // not empty, checked above
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
        updateSampleCluster(db, row.id, a.fingerprint, a.clusterId, JSON.stringify(labels));
        dedupe.index(row.id, a);
        samples++;
      }
    }
    dedupe.flushBands();
  }).immediate();
  return { samples, duplicates };
}
