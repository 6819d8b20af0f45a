// The samples a dataset export selects: the plan's small columns, then full rows page by page, and the
// counts the export dialog and an empty export's message show. The exports themselves are recorded in
// dataset_exports (datasetExports.ts).
import type { SampleType } from '../../../shared/domain';
import type { Statement } from 'better-sqlite3';
import { IdNumbering } from '../../text/digestSet';
import type { DB } from '../connection';
import { stmt } from '../statements';
import { indexExists } from './schema';

/** Row builders by statement: an object literal of the statement's columns, compiled once. */
const rowBuilders = new WeakMap<Statement, (values: unknown[]) => unknown>();

/**
 * The function that makes a row object of a statement's raw values. A literal with the column names
 * written out makes each row in one allocation of a known shape; assigning the names one by one from a
 * list took V8's keyed-store slow path (the raw export's 122,946 page rows: 0.79-0.93 s as arrays, 1.10-1.43
 * s as objects built that way, 0.79-0.81 s with the literal). Column names are quoted as JSON string keys.
 */
function rowBuilder(s: Statement): (values: unknown[]) => unknown {
  let build = rowBuilders.get(s);
  if (!build) {
    const fields = s.columns().map((c, i) => `${JSON.stringify(c.name)}: values[${i}]`);
    build = new Function('values', `return { ${fields.join(', ')} };`) as (values: unknown[]) => unknown;
    rowBuilders.set(s, build);
  }
  return build;
}

/**
 * All rows of a statement as objects, built here from its raw arrays: better-sqlite3 builds each row object
 * through V8's API, about 1.5 µs a row more than this (which gives every row the same shape). The
 * statement is left out of raw mode, as stmt() hands it out.
 */
function allRows<Row>(s: Statement<unknown[], Row>, params: unknown): Row[] {
  const build = rowBuilder(s as Statement);
  const arrays = s.raw(true).all(params) as unknown as unknown[][];
  s.raw(false);
  const rows: Row[] = new Array<Row>(arrays.length);
  for (let r = 0; r < arrays.length; r++) rows[r] = build(arrays[r]!) as Row;
  return rows;
}

/** Which samples an export takes, before near-duplicate clusters are folded. */
export interface SampleSelection {
  sampleTypes: readonly SampleType[];
  includeUnreviewed: boolean;
  minQuality: number | null;
  since: number | null;
  until: number | null;
  /** Preference formats: only samples that hold a pair (a gate refusal, or a corrected write). */
  pairsOnly: boolean;
}

/**
 * Every selected sample as the plan sees it, one array per column, in rowid order: enough to fold clusters,
 * balance labels and split. Index i of each array is the same sample. Typed arrays, and numbers instead of
 * the cluster and group ids: at 1,000,000 decisions a plan holds 1,800,000 samples, and a number and two
 * strings per sample took its heap to 600 MB (an export's peak RSS 740-790 MB); these take 17 bytes a sample.
 */
export interface PlanColumns {
  r: Float64Array;
  /** PLAN_APPROVED (approved or auto-approved) and PLAN_CORRECTED (a correction, or collected from one). */
  flags: Uint8Array;
  /**
   * The near-duplicate cluster (the sample's own id when it has none) as a number from 0 to clusters - 1:
   * two samples have the same number exactly when they have the same cluster.
   */
  clusterNo: Int32Array;
  clusters: number;
  /**
   * What the split keeps together (the session, or the turn, the sample when it has none) as a number from 0
   * to groups - 1; the key of group g (PlanColumnsOptions.groupKey of its name) is at groupKey[g * ID_KEY_WORDS].
   */
  grpNo: Int32Array;
  groups: number;
  groupKey: Uint32Array;
  /**
   * Only when the export balances labels: the key each row's id sorts by in the seeded order (IdKey,
   * ID_KEY_WORDS words a row), and its step and label (gate:write, wg:refused, ...) as a number into labels,
   * -1 for none. A string per row was 8 bytes of old space a row, grown by copying, at 1,000,000 decisions.
   */
  idKey?: Uint32Array;
  labelNo?: Int32Array;
  labels?: string[];
}

/** Words of a row's id key in PlanColumns.idKey. */
export const ID_KEY_WORDS = 3;
/**
 * Writes the key an id sorts by (ID_KEY_WORDS words) at out[at * ID_KEY_WORDS]. The plan keeps this key
 * and not the id: 1,240,000 ids were 68 MB of a balanced plan at 1,000,000 decisions, their keys are 15 MB;
 * 717,715 turn names about 40 MB of a plan split by turn, their keys 9 MB.
 */
export type IdKey = (id: string, out: Uint32Array, at: number) => void;

/**
 * How the plan reads its columns: split by session or turn, each group's name keyed by groupKey, and with
 * labels (each id keyed by the IdKey given) when it balances them.
 */
export interface PlanColumnsOptions {
  splitBy: 'session' | 'turn';
  groupKey: IdKey;
  labels: IdKey | null;
}

export const PLAN_APPROVED = 1;
export const PLAN_CORRECTED = 2;

/**
 * The WHERE clause (alias s) of a selection and its parameters; the text depends only on which filters are set.
 * exclusions false: the caller found no exclusion at all (hasExclusions), so excluded_sessions is empty and is
 * not consulted: the view walks every session with three lookups each, a few ms per query at 4,000 sessions.
 * keyed: the caller reads the time index from a (created_at, rowid) key that starts at since, so since is
 * left out: with a second lower bound on created_at, SQLite sought by since for every chunk, not by the key.
 */
function selectionWhere(sel: SampleSelection, exclusions = true, keyed = false): { where: string; params: Record<string, unknown> } {
  const parts = [
    's.sample_type IN (SELECT value FROM json_each(@types))',
    sel.includeUnreviewed ? "s.annotation_status <> 'rejected'" : "s.annotation_status IN ('approved', 'auto_approved')",
  ];
  if (exclusions) parts.unshift('s.session_id NOT IN (SELECT session_id FROM excluded_sessions)');
  const params: Record<string, unknown> = { types: JSON.stringify(sel.sampleTypes) };
  // unscored samples (quality scoring switched off) have no score to hold against the floor
  if (sel.minQuality !== null) {
    parts.push('(s.quality_score IS NULL OR s.quality_score >= @minQuality)');
    params.minQuality = sel.minQuality;
  }
  if (sel.since !== null && !keyed) {
    parts.push('s.created_at >= @since');
    params.since = sel.since;
  }
  if (sel.until !== null) {
    parts.push('s.created_at < @until');
    params.until = sel.until;
  }
  if (sel.pairsOnly) parts.push(PAIR_CONDITION);
  return { where: parts.join(' AND '), params };
}

/** Samples that hold a pair: the WHERE clause of their index (migration 0183), which a plan's query must imply to use it. */
const PAIR_CONDITION = "(s.sample_type = 'memory_gate_negative' OR s.correction_id IS NOT NULL)";

/** The partial index of the samples that hold a pair, with every column the plan reads of them (migration 0183). */
const PAIR_INDEX = 'idx_samples_pairs';

/**
 * The rows a plan reads: every sample for most formats (one pass over the table in rowid order), only
 * the samples that hold a pair for preference formats, from their own index. Without a time window the
 * selection is most of the table, and SQLite would still search the type and status index, read each row
 * by rowid and sort them again: at 252,500 samples that took 0.94-1.33 s CPU against 0.67-0.95 s for the
 * scan (csv's plan, six runs each). The pairs' 19,014 rows take 26 ms from their index, 0.17 s when each is
 * read from the table; SQLite would rather search by rowid for the chunks (below), so the index is named,
 * when the schema has it. A time window is read from the time index in (created_at, rowid) order (keyed).
 */
function planSource(db: DB, sel: SampleSelection): { from: string; keyed: boolean } {
  if (sel.pairsOnly)
    return { from: indexExists(db, PAIR_INDEX) ? `dataset_samples s INDEXED BY ${PAIR_INDEX}` : 'dataset_samples s', keyed: false };
  if (sel.since === null && sel.until === null) return { from: 'dataset_samples s NOT INDEXED', keyed: false };
  return indexExists(db, TIME_INDEX)
    ? { from: `dataset_samples s INDEXED BY ${TIME_INDEX}`, keyed: true }
    : { from: 'dataset_samples s', keyed: false };
}

/**
 * The samples by time (migration 0179). A chunk of a time window asked for in rowid order made SQLite find
 * and sort every row of the window again, once per chunk: the plan of an alpaca export with `since: 0` at
 * 1,000,000 decisions took 34 s of CPU. In the index's own order, (created_at, rowid), each chunk is a seek.
 */
const TIME_INDEX = 'idx_samples_created';

const LABEL_SQL = `CASE s.sample_type
    WHEN 'write_guardian_decision' THEN 'wg:' || coalesce(json_extract(s.content, '$.userCorrection.correctedDecision'), json_extract(s.content, '$.decision'))
    WHEN 'annotated_turn' THEN NULL
    ELSE CASE WHEN json_extract(s.content, '$.correctDecision') = 'NO_WRITE' THEN 'gate:no_write' ELSE 'gate:write' END END`;

/**
 * Rows of the plan per query where each query enters its index where the last one ended: the cluster
 * index, the table by rowid, the time index by key. A chunk's parsed ids live while it is numbered: chunks
 * of 65,536 rows lived through scavenges and were promoted. At 1,000,000 decisions, the plan of 1,783,573
 * samples from the cluster index took peak RSS to 226 MB with 65,536 rows, 172 MB with 4,096 (3.7 s of CPU
 * instead of 4.1); a balanced plan from the table 344 → 224 MB, a turn split 340 → 250 MB, a window 356 → 257 MB.
 */
const PLAN_CHUNK = 4_096;
/**
 * Rows per query read from the pair index, which is not in rowid order, so each query scans it again:
 * 65,536 rows a query took 0.8 s of CPU for the 190,141 pairs of 1,000,000 decisions, 4,096 took 6.3 s.
 */
const PAIR_CHUNK = 65_536;

/** A copy of a with room for size values (the values of a first). */
function widened<T extends Float64Array | Uint8Array | Int32Array | Uint32Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}

/**
 * The plan's columns as they are read, grown by half, with the cluster and group ids numbered as they
 * come (numbers, not a string per row; each group's key once).
 */
class PlanColumnsBuilder {
  n = 0;
  r = new Float64Array(1024);
  flags = new Uint8Array(1024);
  clusterNo = new Int32Array(1024);
  grpNo = new Int32Array(1024);
  /** Only when the plan balances labels: each row's id key and label number. */
  balance: { idKey: Uint32Array; labelNo: Int32Array } | null;
  clusters = 0;
  groupKey = new Uint32Array(1024 * ID_KEY_WORDS);
  private readonly groupNo = new IdNumbering();
  /** each distinct label's number: its place in labels */
  private readonly labelNumber = new Map<string, number>();
  readonly labels: string[] = [];
  private readonly keyOf: IdKey | null;
  private readonly groupKeyOf: IdKey;

  constructor(opts: PlanColumnsOptions) {
    this.keyOf = opts.labels;
    this.groupKeyOf = opts.groupKey;
    this.balance = opts.labels ? { idKey: new Uint32Array(1024 * ID_KEY_WORDS), labelNo: new Int32Array(1024) } : null;
  }

  push(r: number, clusterNo: number, grp: string, flags: number): void {
    if (this.n === this.r.length) this.grow();
    const i = this.n++;
    this.r[i] = r;
    this.flags[i] = flags;
    this.clusterNo[i] = clusterNo;
    const groups = this.groupNo.size;
    const g = this.groupNo.numberOf(grp);
    if (g === groups) {
      if ((g + 1) * ID_KEY_WORDS > this.groupKey.length) this.groupKey = widened(this.groupKey, this.groupKey.length * 2);
      this.groupKeyOf(grp, this.groupKey, g);
    }
    this.grpNo[i] = g;
  }

  /** The id and label of row i (pushed already), when the plan balances labels. */
  labelRow(i: number, id: string, label: string | null): void {
    const balance = this.balance!;
    this.keyOf!(id, balance.idKey, i);
    let no = label === null ? -1 : (this.labelNumber.get(label) ?? -1);
    if (label !== null && no < 0) {
      no = this.labels.push(label) - 1;
      this.labelNumber.set(label, no);
    }
    balance.labelNo[i] = no;
  }

  private grow(): void {
    // by half: at 1,240,000 rows doubling left 2,097,152 slots (29 bytes each with id keys), half again 1,515,860
    const size = Math.ceil(this.r.length * 1.5);
    this.r = widened(this.r, size);
    this.flags = widened(this.flags, size);
    this.clusterNo = widened(this.clusterNo, size);
    this.grpNo = widened(this.grpNo, size);
    const b = this.balance;
    if (b) this.balance = { idKey: widened(b.idKey, size * ID_KEY_WORDS), labelNo: widened(b.labelNo, size) };
  }

  /**
   * The columns in rowid order. order: the indexes of the rows read, in rowid order (none when they were
   * read in it); the rows are moved in place, cycle by cycle, so no second copy of the columns is made.
   */
  columns(order?: Int32Array): PlanColumns {
    const n = order ? order.length : this.n;
    if (order) this.permute(order);
    return {
      r: this.r.subarray(0, n),
      flags: this.flags.subarray(0, n),
      clusterNo: this.clusterNo.subarray(0, n),
      clusters: this.clusters,
      grpNo: this.grpNo.subarray(0, n),
      groups: this.groupNo.size,
      groupKey: this.groupKey.subarray(0, this.groupNo.size * ID_KEY_WORDS),
      ...(this.balance
        ? { idKey: this.balance.idKey.subarray(0, n * ID_KEY_WORDS), labelNo: this.balance.labelNo.subarray(0, n), labels: this.labels }
        : {}),
    };
  }

  /** Row j becomes the row that was at order[j] (order: a permutation of the rows read). */
  private permute(order: Int32Array): void {
    const { r, flags, clusterNo, grpNo, balance } = this;
    const W = ID_KEY_WORDS;
    const k0 = new Uint32Array(W);
    const done = new Uint8Array(order.length);
    for (let start = 0; start < order.length; start++) {
      if (done[start]) continue;
      const [r0, f0, c0, g0, l0] = [r[start]!, flags[start]!, clusterNo[start]!, grpNo[start]!, balance?.labelNo[start] ?? -1];
      if (balance) k0.set(balance.idKey.subarray(start * W, start * W + W));
      // along the cycle through start, each place takes the row order names for it; the last takes start's row
      let j = start;
      for (let from = order[j]!; from !== start; from = order[j]!) {
        r[j] = r[from]!;
        flags[j] = flags[from]!;
        clusterNo[j] = clusterNo[from]!;
        grpNo[j] = grpNo[from]!;
        if (balance) {
          balance.idKey.copyWithin(j * W, from * W, from * W + W);
          balance.labelNo[j] = balance.labelNo[from]!;
        }
        done[j] = 1;
        j = from;
      }
      [r[j], flags[j], clusterNo[j], grpNo[j]] = [r0, f0, c0, g0];
      if (balance) {
        balance.idKey.set(k0, j * W);
        balance.labelNo[j] = l0;
      }
      done[j] = 1;
    }
  }
}

/**
 * Every selected sample's plan columns, in rowid order. Each query hands over a chunk of rows as one JSON
 * array per column: better-sqlite3 spends about 1.7 µs on every row it returns, which was most of the plan
 * (184,419 rows: 0.93-1.24 s as rows, 0.45 s as arrays, parse included). Only what folding and splitting
 * need is read (each column read costs as much as the scan): the label and id only when balancing, the
 * turn only when splitting by turn; curator picks and edits are few and come from listPickedSampleRowids and
 * listEditedSampleRowids.
 */
export function listPlanColumns(db: DB, sel: SampleSelection, opts: PlanColumnsOptions, rowsPerQuery?: number): PlanColumns {
  if (byClusterIndex(db, sel, opts)) {
    const columns = planColumnsByCluster(db, sel, opts, rowsPerQuery ?? PLAN_CHUNK);
    if (columns) return columns;
  }
  const { from, keyed } = planSource(db, sel);
  const chunk = rowsPerQuery ?? (sel.pairsOnly ? PAIR_CHUNK : PLAN_CHUNK);
  const { where, params } = selectionWhere(sel, hasExclusions(db), keyed);
  const inner = `SELECT s.rowid AS r, coalesce(s.cluster_id, s.id) AS cluster,
      ${opts.splitBy === 'turn' ? 'coalesce(s.turn_id, s.id)' : 's.session_id'} AS grp,
      (s.annotation_status IN ('approved', 'auto_approved')) * ${PLAN_APPROVED}
        + (s.correction_id IS NOT NULL OR s.collection_strategy IN ('manual_correction', 'missed_write')) * ${PLAN_CORRECTED} AS flags
      ${opts.labels ? `, s.id, ${LABEL_SQL} AS label` : ''} ${keyed ? ', s.created_at AS t' : ''}
     FROM ${from} WHERE ${where}
       AND ${keyed ? '(s.created_at, s.rowid) > (@afterTime, @after) ORDER BY s.created_at, s.rowid' : 's.rowid > @after ORDER BY s.rowid'}
     LIMIT ${chunk}`;
  const names = ['r', 'cluster', 'grp', 'flags', ...(opts.labels ? ['id', 'label'] : [])] as const;
  const sql = `SELECT ${keyed ? 'max(t)' : 'NULL'}, ${names.map((c) => `json_group_array(${c})`).join(', ')} FROM (${inner})`;
  const s = stmt(db, sql).raw(true);
  const b = new PlanColumnsBuilder(opts);
  // clusters numbered in order of first appearance; a selection with a time window or of pairs only is
  // read here, and most of its clusters are single samples: their ids are numbered by digest, not in a Map
  const clusterNo = new IdNumbering();
  try {
    // a chunk's last row is where the next one starts: its rowid, and its time when keyed; keyed, the first
    // chunk starts at since (created_at >= 0, rowids > 0)
    for (let after = 0, afterTime = sel.since ?? -1; ;) {
      const [lastTime, ...texts] = s.get({ ...params, after, afterTime }) as [number | null, ...string[]];
      const [r, cluster, grp, flags] = texts.slice(0, 4).map((t) => JSON.parse(t) as unknown[]) as [number[], string[], string[], number[]];
      const first = b.n;
      for (let i = 0; i < r.length; i++) b.push(r[i]!, clusterNo.numberOf(cluster[i]!), grp[i]!, flags[i]!);
      if (opts.labels) {
        const [ids, labels] = [JSON.parse(texts[4]!) as string[], JSON.parse(texts[5]!) as (string | null)[]];
        for (let i = 0; i < r.length; i++) b.labelRow(first + i, ids[i]!, labels[i]!);
      }
      if (r.length < chunk) break;
      after = r[r.length - 1]!;
      afterTime = lastTime ?? -1;
    }
  } finally {
    s.raw(false);
  }
  b.clusters = clusterNo.size;
  // unkeyed, each chunk's subquery is ordered by rowid and SQLite hands its rows to json_group_array in that
  // order (this guards that assumption); keyed, they come by time, mostly in rowid order, and are sorted here
  const r = b.r.subarray(0, b.n);
  const ascending = r.every((x, i) => i === 0 || x > r[i - 1]!);
  return b.columns(ascending ? undefined : rowidOrder(r));
}

/** The index that holds every column of the default plan but the collection strategy (cluster, type, status, quality, session, correction). */
const CLUSTER_INDEX = 'idx_samples_cluster_filters';
/** The partial index of the samples corrected by their strategy alone, without a correction id (migration 0184). */
const STRATEGY_INDEX = 'idx_samples_strategy_corrected';
/** Its WHERE clause, which the query that reads it repeats. */
const STRATEGY_CONDITION = "s.correction_id IS NULL AND s.collection_strategy IN ('manual_correction', 'missed_write')";

/**
 * Whether the plan can read the cluster index instead of the table: the selection of every export but the
 * preference ones without a time window, split by session, unbalanced, and every sample in a cluster with
 * an id. The table scan reads every page of the samples (0.2 s of CPU at 252,500 samples); the index is a
 * tenth of that, and hands the rows over grouped by cluster.
 */
function byClusterIndex(db: DB, sel: SampleSelection, opts: PlanColumnsOptions): boolean {
  if (sel.pairsOnly || sel.since !== null || sel.until !== null || opts.splitBy !== 'session' || opts.labels) return false;
  if (!indexExists(db, CLUSTER_INDEX) || !indexExists(db, STRATEGY_INDEX)) return false;
  // a sample without a cluster is folded by its own id, which the index does not hold; chunks start after a cluster id
  return stmt(db, "SELECT EXISTS (SELECT 1 FROM dataset_samples WHERE cluster_id IS NULL OR cluster_id = '')").pluck().get() === 0;
}

type ClusterColumns = { r: number[]; cluster: string[]; grp: string[]; flags: number[] };
const CLUSTER_COLUMNS = ['r', 'cluster', 'grp', 'flags'] as const;

/**
 * The plan's columns read from the cluster index in chunks of whole clusters (a chunk's last cluster is read
 * again by the next one, unless it is the whole chunk), numbered by cluster and put in rowid order; the few
 * samples corrected by their strategy alone come from their own index. Null when SQLite did not hand the
 * rows over grouped by cluster (the table is read then).
 */
function planColumnsByCluster(db: DB, sel: SampleSelection, opts: PlanColumnsOptions, chunk: number): PlanColumns | null {
  const { where, params } = selectionWhere(sel, hasExclusions(db));
  const corrected = new Set(
    stmt(db, `SELECT s.rowid FROM dataset_samples s INDEXED BY ${STRATEGY_INDEX} WHERE ${STRATEGY_CONDITION}`).pluck().all() as number[],
  );
  const read = (bound: string, limit: string) =>
    readClusterColumns(
      stmt(
        db,
        `SELECT json_group_array(r), json_group_array(cluster), json_group_array(grp), json_group_array(flags) FROM (
           SELECT s.rowid AS r, s.cluster_id AS cluster, s.session_id AS grp,
             (s.annotation_status IN ('approved', 'auto_approved')) * ${PLAN_APPROVED} + (s.correction_id IS NOT NULL) * ${PLAN_CORRECTED} AS flags
           FROM dataset_samples s INDEXED BY ${CLUSTER_INDEX} WHERE ${where} AND ${bound} ORDER BY s.cluster_id ${limit})`,
      ),
      params,
    );
  const out = new ClusterNumbering(corrected, new PlanColumnsBuilder(opts));
  for (let after = ''; ;) {
    const c = read('s.cluster_id > @after', `LIMIT ${chunk}`)({ after });
    const n = c.r.length;
    if (n < chunk) {
      if (!out.append(c, n)) return null;
      break;
    }
    // the last cluster may go on past the chunk: it is read whole, by the next chunk or here when it fills the chunk
    const last = c.cluster[n - 1]!;
    let k = n - 1;
    while (k > 0 && c.cluster[k - 1] === last) k--;
    if (k > 0) {
      if (!out.append(c, k)) return null;
      after = c.cluster[k - 1]!;
    } else {
      if (!out.append(read('s.cluster_id = @after', '')({ after: last }), Infinity)) return null;
      after = last;
    }
  }
  const b = out.builder;
  return b.columns(rowidOrder(b.r.subarray(0, b.n)));
}

/** Rows read in cluster order, numbered by cluster as they come. */
class ClusterNumbering {
  private previous: string | undefined;

  constructor(
    private readonly corrected: Set<number>,
    readonly builder: PlanColumnsBuilder,
  ) {}

  /** Appends the first n rows of c; false when they are not in cluster order. */
  append(c: ClusterColumns, n: number): boolean {
    const b = this.builder;
    const m = Math.min(n, c.r.length);
    for (let i = 0; i < m; i++) {
      const cluster = c.cluster[i]!;
      if (cluster !== this.previous) {
        if (this.previous !== undefined && cluster < this.previous) return false;
        this.previous = cluster;
        b.clusters++;
      }
      const r = c.r[i]!;
      b.push(r, b.clusters - 1, c.grp[i]!, this.corrected.has(r) ? c.flags[i]! | PLAN_CORRECTED : c.flags[i]!);
    }
    return true;
  }
}

/** A chunk query's columns, parsed from its JSON arrays. */
function readClusterColumns(s: Statement, params: Record<string, unknown>): (p: { after: string }) => ClusterColumns {
  return (p) => {
    const texts = s.raw(true).get({ ...params, ...p }) as string[];
    s.raw(false);
    const c = { r: [], cluster: [], grp: [], flags: [] } as ClusterColumns;
    for (let k = 0; k < CLUSTER_COLUMNS.length; k++) c[CLUSTER_COLUMNS[k]!] = JSON.parse(texts[k]!) as never;
    return c;
  };
}

/**
 * The indexes of the rows in ascending rowid order (a permutation of them): a counting sort while rowids
 * are dense (collection only appends), a comparison sort when many samples were deleted.
 */
function rowidOrder(r: Float64Array): Int32Array {
  const n = r.length;
  let top = 0;
  for (const x of r) if (x > top) top = x;
  const sorted = () => Int32Array.from(r.keys()).sort((a, b) => r[a]! - r[b]!);
  if (top > 8 * n + 1024) return sorted();
  const at = new Int32Array(top + 1).fill(-1);
  for (let i = 0; i < n; i++) {
    // a rowid read twice would leave a place empty: the comparison sort keeps both
    if (at[r[i]!]! >= 0) return sorted();
    at[r[i]!] = i;
  }
  const order = new Int32Array(n);
  let j = 0;
  for (let x = 0; x <= top; x++) if (at[x]! >= 0) order[j++] = at[x]!;
  return order;
}

/** Sample ids by rowid (a plan lists a few of them by id). */
export function listSampleIdsByRowid(db: DB, rowids: number[]): Map<number, string> {
  const s = stmt(db, 'SELECT rowid, id FROM dataset_samples WHERE rowid IN (SELECT value FROM json_each(?))').raw(true);
  try {
    return new Map(s.all(JSON.stringify(rowids)) as [number, string][]);
  } finally {
    s.raw(false);
  }
}

/** The rowids of samples a curator picked as their cluster's representative. */
export function listPickedSampleRowids(db: DB): number[] {
  return stmt(db, 'SELECT rowid FROM dataset_samples WHERE id IN (SELECT sample_id FROM dataset_cluster_picks)').pluck().all() as number[];
}

/** The rowids of samples with an edit that is not undone. */
export function listEditedSampleRowids(db: DB): number[] {
  return stmt(
    db,
    "SELECT rowid FROM dataset_samples WHERE id IN (SELECT sample_id FROM dataset_annotation_events WHERE action = 'edit' AND undone_at IS NULL)",
  )
    .pluck()
    .all() as number[];
}

/** Whether any session, target or account is excluded (read again for every page, so one added meanwhile counts). */
function hasExclusions(db: DB): boolean {
  return stmt(db, 'SELECT EXISTS (SELECT 1 FROM exclusions)').pluck().get() === 1;
}

/**
 * The planned samples of one page (the columns `columns` names with alias s), by rowid, in rowid order:
 * only those rows are read, each by its rowid, and one that left the selection since the plan is skipped.
 */
export function listPlannedSamplePage<Row>(
  db: DB,
  sel: SampleSelection,
  columns: string,
  rowids: ArrayLike<number>,
): (Row & { _rowid: number })[] {
  // excluded_sessions walks every session each time it runs (1.75 ms at 4,000 sessions, once per page of
  // 1,000 samples); it selects sessions that match an exclusion, so without any it holds none
  const { where, params } = selectionWhere(sel, hasExclusions(db));
  // rowids ascend, and the join reads them in that order: no sort, and no index other than the rowid
  return allRows(
    stmt<Row & { _rowid: number }>(
      db,
      `SELECT s.rowid AS _rowid, ${columns} FROM json_each(@rowids) page CROSS JOIN dataset_samples s ON s.rowid = page.value WHERE ${where}`,
    ),
    { ...params, rowids: JSON.stringify(Array.from(rowids)) },
  );
}

/**
 * The PII spans of every sample of these sessions (any status), by session and then rowid: one query per
 * page of an export, through the partial index of samples with spans (migration 0172).
 */
export function listSessionsSampleSpans(db: DB, sessionIds: string[]): { sessionId: string; spans: string; createdAt: number }[] {
  return stmt<{ sessionId: string; spans: string; createdAt: number }>(
    db,
    `SELECT session_id AS sessionId, pii_spans AS spans, created_at AS createdAt FROM dataset_samples
      WHERE session_id IN (SELECT value FROM json_each(?)) AND pii_spans IS NOT NULL ORDER BY session_id, rowid`,
  ).all(JSON.stringify(sessionIds));
}

/** How many of these selected samples (by rowid) contain PII. */
export function countPiiSamples(db: DB, sel: SampleSelection, rowids: ArrayLike<number>): number {
  const { where, params } = selectionWhere(sel);
  return stmt(
    db,
    `SELECT coalesce(sum(s.contains_pii), 0) FROM dataset_samples s WHERE ${where} AND s.rowid IN (SELECT value FROM json_each(@rowids))`,
  )
    .pluck()
    .get({ ...params, rowids: JSON.stringify(Array.from(rowids)) }) as number;
}

/** Samples outside excluded sessions, in all, waiting for review, and approved: why an export came out empty. */
export function countExportableSamples(db: DB): { all: number; waiting: number; approved: number } {
  return stmt<{ all: number; waiting: number; approved: number }>(
    db,
    `SELECT count(*) AS "all",
       coalesce(sum(s.annotation_status IN ('pending', 'needs_review')), 0) AS waiting,
       coalesce(sum(s.annotation_status IN ('approved', 'auto_approved')), 0) AS approved
     FROM dataset_samples s WHERE s.session_id NOT IN (SELECT session_id FROM excluded_sessions)`,
  ).get()!;
}

/** Samples by rowid with their gate decision's reason (the eval export's held-out cases), in rowid order. */
export function listSamplesWithGateReason<Row>(db: DB, columns: string, rowids: number[]): (Row & { gate_reason: string | null })[] {
  return stmt<Row & { gate_reason: string | null }>(
    db,
    `SELECT ${columns}, (SELECT reason FROM memory_gate_decisions d WHERE d.id = s.decision_id) AS gate_reason
     FROM dataset_samples s WHERE s.rowid IN (SELECT value FROM json_each(?)) ORDER BY s.rowid`,
  ).all(JSON.stringify(rowids));
}
