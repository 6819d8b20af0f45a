// Collection: seed 000's DatasetCollectionStrategy over recorded decisions, audits, rollbacks and corrections.
// This file drives a run: decisions in keyset pages, each page written in bounded transactions, so
// 100,000 decisions take flat memory; every sample has a unique source_key, so collecting twice adds
// nothing. The rules are in collect/rules.ts (pure), assessment in collect/assess.ts, one decision's
// pipeline in collect/decision.ts, and the SQL in db/repositories/collect*.ts.
import type { AnnotationStatus, SampleType } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { restoreDeferredIndexes, withBulkCheckpoints, withDeferredIndexes, withoutMmap } from '../db/bulk';
import { countTableRows } from '../db/repositories/schema';
import {
  countDecisionsInWindow,
  lastDecisionSeq,
  listDecisionPage,
  listSourceKeysOfDecisions,
  type CollectWindow,
} from '../db/repositories/collect';
import { mainWriterWaiting, pauseForUncountedWriters } from '../db/writeGate';
import { nowOf, type ServiceContext } from '../context';
import { listFutureCorrections } from '../guardian/corrections';
import { resolveDatasetConfig, type DatasetCollectionConfig, type DatasetCollectionConfigInput } from './config';
import { Deduper, clustersAreStale, reclusterSamples, repairBandIndex } from './dedupe';
import { PiiScanCache, loadPiiDetector } from './privacy';
import { collectDecision, databaseLookups, readFactsChunk, type CollectRun, type FactsChunk } from './collect/decision';
import { HeapCeiling } from './heapCeiling';

export interface CollectOptions {
  /** ms since epoch (inclusive) */
  since?: number;
  /** ms since epoch (exclusive) */
  until?: number;
  sessionId?: string;
  type?: 'all' | 'positive' | 'negative';
  autoApprove?: boolean;
  dryRun?: boolean;
  config?: DatasetCollectionConfigInput | DatasetCollectionConfig;
  /** Decisions per page (one read, one set of collected source keys), and at most per transaction. */
  batchSize?: number;
}

/** What a collection run did, in full; the API answers with the contract's CollectResult, a view of it. */
export interface CollectRunSummary {
  decisionsScanned: number;
  added: Record<SampleType, number>;
  addedTotal: number;
  alreadyCollected: number;
  byStatus: Partial<Record<AnnotationStatus, number>>;
  signalsStored: number;
  duplicates: number;
  privacyChecked: boolean;
  dryRun: boolean;
  cancelled: boolean;
}

/** How long a collection transaction holds the write lock when nobody waits, past TX_MIN_DECISIONS (ms). */
const TX_BUDGET_MS = 2_000;
/**
 * Shortest one, even when main waits: a job that committed after every decision for main's frequent
 * writers would crawl. 100 ms rather than 250: with 250, live capture's line-to-row p95 was 2.8 s
 * during a 20,000-decision job; with 100 it was 1.1 s, and the job finished sooner (bench 45-jobs).
 */
const TX_MIN_MS = 100;
/**
 * Decisions a transaction holds before the wall-time budget may end it. Every commit writes the index
 * pages it dirtied to the WAL again, and the random-key indexes (fingerprint, session, cluster) dirty
 * a page per sample until a transaction covers most of their pages: at 100,000 decisions, transactions
 * of 400 wrote 5.0 GB for 0.7 GB of growth, and of 1,500 3.7 GB. Main's writers still end one at once,
 * so live capture does not wait for it; progress and cancellation come between transactions.
 */
const TX_MIN_DECISIONS = 1_500;
/** Longest a transaction holds the write lock for TX_MIN_DECISIONS on a very loaded machine (ms). */
const TX_MAX_MS = 5_000;
/**
 * Decisions read per page (one read, one set of collected source keys), and the most one transaction
 * holds, so its dirty pages and new band rows stay bounded on a fast machine.
 */
const PAGE_DECISIONS = 2 * TX_MIN_DECISIONS;
const txDone = (elapsedMs: number, decisions: number, maxDecisions: number) =>
  (elapsedMs >= TX_MIN_MS && mainWriterWaiting()) ||
  (elapsedMs >= TX_BUDGET_MS && decisions >= TX_MIN_DECISIONS) ||
  elapsedMs >= TX_MAX_MS ||
  decisions >= maxDecisions;
/**
 * Page cache during collection (KiB): a transaction's dirty pages (about 30 MB) stay in it, not spilled.
 * It is resident memory: 48 MiB took peak RSS past 250 MB at 100,000 decisions. 36 MiB instead of 40
 * took 2 MiB off the peak at 1,000,000 decisions (249 -> 247) and wrote the same bytes at the same CPU
 * per decision (35,825 and 35,720 MiB; 1,035 and 1,015 µs).
 */
const COLLECT_CACHE_KIB = 36_864;
const TEMP_STORE_MEMORY = 2;
/** Samples a decision yields at most, to size dedupe's filters. */
const SAMPLES_PER_DECISION = 3;

function emptyResult(privacyChecked: boolean, dryRun: boolean): CollectRunSummary {
  return {
    decisionsScanned: 0,
    added: { memory_gate_positive: 0, memory_gate_negative: 0, write_guardian_decision: 0, annotated_turn: 0 },
    addedTotal: 0,
    alreadyCollected: 0,
    byStatus: {},
    signalsStored: 0,
    duplicates: 0,
    privacyChecked,
    dryRun,
    cancelled: false,
  };
}

function windowOf(opts: CollectOptions, lastSeq: number): CollectWindow {
  const type = opts.type ?? 'all';
  if (!['all', 'positive', 'negative'].includes(type)) {
    throw new AppError('Invalid', `collect: type must be all, positive or negative (got ${String(type)})`);
  }
  const since = opts.since ?? 0;
  const until = opts.until ?? Number.MAX_SAFE_INTEGER;
  if (since > until) throw new AppError('Invalid', 'collect: since is after until');
  return { since, until, session: opts.sessionId ?? null, lastSeq };
}

/**
 * Collects dataset samples from recorded decisions. Progress goes to ctx.progress; ctx.signal cancels
 * between transactions (what was committed stays; the next run continues where it left off).
 */
export function collectSamples(ctx: ServiceContext, opts: CollectOptions = {}): Promise<CollectRunSummary> {
  // The whole run reads without the memory map (bulk.ts), its start included: counting the window read
  // every decision row through the map, and at 300,000 decisions that took peak RSS from about 250 MB
  // to 324 MB for a moment (mapped pages count as resident until the map is dropped).
  return withoutMmap(ctx.db, () => collectUnmapped(ctx, opts));
}

async function collectUnmapped(ctx: ServiceContext, opts: CollectOptions): Promise<CollectRunSummary> {
  // Up to the last decision recorded now: live capture keeps adding decisions, and a run that chased
  // them would never end when capture outpaces it (seen at 100,000 decisions under capture at 20/s).
  const w = windowOf(opts, lastDecisionSeq(ctx.db));
  const run = await startRun(ctx, opts, w);
  // Built again outside the run's settings below: with temporary files in memory and the large cache,
  // the sort of a rebuilt index took peak RSS to 298 MB at 300,000 decisions.
  return withDeferredIndexes(ctx.db, indexesToDefer(ctx, run), () => collectRun(ctx, opts, w, run), rebuildProgress(ctx));
}

/** The steps a run's progress names (its label), in order; the last two follow a cancel too. */
const STEP = { decisions: 'decisions', bandRows: 'writing the duplicate index', indexes: 'rebuilding indexes' } as const;

/** The job's progress while set-aside indexes are built: minutes on a workspace of millions of samples. */
const rebuildProgress =
  (ctx: ServiceContext) =>
  (built: number, total: number): void =>
    ctx.progress?.(built, total, STEP.indexes);

async function collectRun(
  ctx: ServiceContext,
  opts: CollectOptions,
  w: CollectWindow,
  run: CollectRun & { total: number },
): Promise<CollectRunSummary> {
  // A transaction writes thousands of rows spread over a dozen indexes: with the connection's small
  // default page cache SQLite spills and re-reads pages all the time. A larger cache for this job only.
  const cacheSize = ctx.db.pragma('cache_size', { simple: true }) as number;
  const cacheKiB = cacheSize < 0 ? -cacheSize : (cacheSize * (ctx.db.pragma('page_size', { simple: true }) as number)) / 1024;
  if (cacheKiB < COLLECT_CACHE_KIB) ctx.db.pragma(`cache_size = -${COLLECT_CACHE_KIB}`);
  // A sample insert (a dozen indexes, foreign keys, overflow pages) keeps a statement journal of about
  // 25 pages; past 64 KiB SQLite spills it to a temporary file, which was 90% of the bytes collection
  // wrote (strace, 2,000 decisions). In memory it is freed after each statement.
  const tempStore = ctx.db.pragma('temp_store', { simple: true }) as number;
  if (tempStore !== TEMP_STORE_MEMORY) ctx.db.pragma(`temp_store = ${TEMP_STORE_MEMORY}`);
  try {
    // 256 MiB of WAL between checkpoints (bulk.ts). 1 GiB copied about 500 MiB less at 300,000 decisions
    // (3.8x to 3.4x), but each page read that misses the cache searches a WAL index four times as long:
    // about 2.5% more CPU per decision in the runs measured, and CPU is not to grow (issue 16).
    await withBulkCheckpoints(ctx.db, () => collectPages(ctx, run, w, opts.batchSize ?? PAGE_DECISIONS));
  } finally {
    if (cacheKiB < COLLECT_CACHE_KIB) ctx.db.pragma(`cache_size = ${cacheSize}`);
    if (tempStore !== TEMP_STORE_MEMORY) ctx.db.pragma(`temp_store = ${tempStore}`);
  }
  return run.result;
}

/**
 * Indexes of dataset_samples a collection that loads in bulk sets aside and builds again at its end
 * (deferredIndexes.ts). Their keys are random with respect to the order samples are stored in: a
 * duplicate joins an old cluster, sessions interleave, scores and corrections are spread out. Kept up row
 * by row, each transaction dirtied a page of them per sample, written to the WAL at every commit: at
 * 300,000 decisions the cluster and session indexes took 1,660 of the 6,400 MiB a collection wrote. No
 * statement of a collection reads them; the cluster and session views, reviews by cluster and exports
 * do, and scan the table until the run ends.
 */
const DEFERRED_WHILE_LOADING = ['idx_samples_cluster_filters', 'idx_samples_session', 'idx_samples_quality', 'idx_samples_correction'];

/**
 * A run loads in bulk when fewer samples are stored than its window holds decisions: at about 2.5 samples
 * a decision it then at least doubles the table, unless most of the window was collected before. Building
 * an index again reads the whole table (1.1-1.9 s an index at 757,500 samples), so a run that adds a
 * little to a large table keeps its indexes up as it goes.
 */
function indexesToDefer(ctx: ServiceContext, run: CollectRun & { total: number }): string[] {
  return run.dryRun || countTableRows(ctx.db, 'dataset_samples') >= run.total ? [] : DEFERRED_WHILE_LOADING;
}

async function startRun(ctx: ServiceContext, opts: CollectOptions, w: CollectWindow): Promise<CollectRun & { total: number }> {
  const cfg = resolveDatasetConfig(opts.config);
  const type = opts.type ?? 'all';
  const dryRun = Boolean(opts.dryRun);
  const detect = cfg.privacyFiltering.enabled ? await loadPiiDetector() : null;
  if (!dryRun) {
    // a run that crashed before building its set-aside indexes again left them recorded
    await restoreDeferredIndexes(ctx.db, rebuildProgress(ctx));
    if (clustersAreStale(ctx.db)) reclusterSamples(ctx.db, cfg.dedupe);
    writeTx(ctx.db, () => repairBandIndex(ctx.db));
  }
  const total = countDecisionsInWindow(ctx.db, w);
  return {
    db: ctx.db,
    cfg,
    total,
    now: nowOf(ctx),
    dryRun,
    autoApprove: Boolean(opts.autoApprove),
    wants: (t) => type === 'all' || (type === 'positive' ? t === 'memory_gate_positive' : t === 'memory_gate_negative'),
    detect,
    detectOpts: { names: cfg.privacyFiltering.detectNames, redactPatterns: cfg.privacyFiltering.redactPatterns },
    // two generations: the texts of overlapping context windows stay cached (privacy.ts)
    piiCache: new PiiScanCache(),
    futureCorrections: listFutureCorrections(ctx),
    dedupe: new Deduper(ctx.db, cfg.dedupe, { dryRun, expectedSamples: total * SAMPLES_PER_DECISION }),
    lookups: databaseLookups(ctx.db),
    result: emptyResult(Boolean(detect), dryRun),
    collected: new Set(),
  };
}

/**
 * The decisions of a run in keyset pages, read as the transactions reach them: a transaction may go on
 * past a page's end into the next page, so it ends only on its budget (txDone), not at a page's end.
 */
class DecisionCursor {
  private rows: ReturnType<typeof listDecisionPage> = [];
  private i = 0;
  private after = 0;
  private done = false;
  /** the current page's context, following turns, audits and corrections, a chunk at a time */
  private chunk: FactsChunk | undefined;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly run: CollectRun,
    private readonly w: CollectWindow,
    private readonly pageSize: number,
  ) {}

  /** True while a decision is left, reading the next page (and its collected source keys) when one ends. */
  more(): boolean {
    if (this.i < this.rows.length) return true;
    if (this.done) return false;
    this.rows = listDecisionPage(this.ctx.db, this.w, this.after, this.pageSize);
    this.i = 0;
    this.chunk = undefined;
    if (!this.rows.length) return !(this.done = true);
    this.after = this.rows[this.rows.length - 1]!.seq; // not empty, checked above
    this.run.collected = new Set(
      listSourceKeysOfDecisions(
        this.ctx.db,
        this.rows.map((r) => r.id),
      ),
    );
    return true;
  }

  /** Collects the next decision; call after more() answered true. */
  collectNext(): void {
    if (!this.chunk || this.i >= this.chunk.to) this.chunk = readFactsChunk(this.run, this.rows, this.i);
    collectDecision(this.run, this.rows[this.i++]!, this.chunk.facts); // i < rows.length: more() said so
  }
}

async function collectPages(ctx: ServiceContext, run: CollectRun & { total: number }, w: CollectWindow, pageSize: number): Promise<void> {
  ctx.progress?.(0, run.total, STEP.decisions);
  const cursor = new DecisionCursor(ctx, run, w, pageSize);
  try {
    // a caller that asks for smaller pages gets transactions no larger: progress and other writers come in between
    await collectTransactions(ctx, run, cursor, pageSize);
  } finally {
    // from here on a cancel waits: the rest (band rows, then the indexes withDeferredIndexes builds) writes
    // what the stored samples need to be found and listed
    ctx.finishing?.();
    // this run's band rows, written sorted in one go (dedupe.ts: why they wait in memory)
    if (!run.dryRun) await flushBandRows(ctx, run, true);
  }
}

/**
 * A transaction holds the write lock. Large ones copy fewer pages to the WAL, so one runs for up to
 * maxDecisions (a page's size), across page ends, but at most TX_BUDGET_MS once it holds
 * TX_MIN_DECISIONS (TX_MAX_MS in any case), and ends after TX_MIN_MS when main has a writer waiting
 * (live capture while this runs in a job worker). Ending at each page's end as well left a short
 * transaction per page (about 2,300 decisions and then 700 at 100,000), which dirtied nearly as many
 * random index pages as a full one.
 */
async function collectTransactions(
  ctx: ServiceContext,
  run: CollectRun & { total: number },
  cursor: DecisionCursor,
  maxDecisions: number,
): Promise<void> {
  const heap = new HeapCeiling();
  for (;;) {
    if (ctx.signal?.aborted) {
      run.result.cancelled = true;
      break;
    }
    if (!cursor.more()) break;
    const started = performance.now();
    let n = 0;
    const work = () => {
      do {
        cursor.collectNext();
        if (++n % HEAP_CHECK_DECISIONS === 0) heap.check();
      } while (!txDone(performance.now() - started, n, maxDecisions) && !run.dedupe.bandFlushDue && cursor.more());
    };
    if (run.dryRun) work();
    else writeTx(ctx.db, work);
    if (!run.dryRun && run.dedupe.bandFlushDue) await flushBandRows(ctx, run);
    run.result.decisionsScanned += n;
    ctx.progress?.(run.result.decisionsScanned, run.total, STEP.decisions);
    // let the event loop run between transactions: progress renders, cancellation arrives
    if (!run.dryRun && performance.now() - started >= TX_BUDGET_MS) await pauseForUncountedWriters();
    else await new Promise((r) => setImmediate(r));
  }
}

/** Decisions between two looks at the heap (heapCeiling.ts): a page of them allocates a few MB. */
const HEAP_CHECK_DECISIONS = 128;

/** Rows per band-flush transaction: a whole flush in one would hold the write lock for seconds. */
const BAND_FLUSH_CHUNK = 20_000;

/**
 * Writes every pending band row, sorted, in transactions of BAND_FLUSH_CHUNK that let main's writers in.
 * The run's last flush reports its rows: up to BAND_FLUSH_ROWS of them, some seconds at a run's end.
 */
async function flushBandRows(ctx: ServiceContext, run: CollectRun, report = false): Promise<void> {
  const total = run.dedupe.pendingBandRows;
  for (let left = total; left > 0;) {
    if (report) ctx.progress?.(total - left, total, STEP.bandRows);
    left = writeTx(ctx.db, () => run.dedupe.flushBands(BAND_FLUSH_CHUNK));
    if (left > 0) await pauseForUncountedWriters();
  }
}
