// The samples a dataset export selects: the plan's small columns, then full rows page by page, and the
// counts the export dialog and an empty export's message show. The exports themselves are recorded in
// dataset_exports (datasetExports.ts).
import type { SampleType } from '../../../shared/domain';
import type { Statement } from 'better-sqlite3';
import type { DB } from '../connection';
import { stmt } from '../statements';

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
 * balance labels and split. Index i of each array is the same sample.
 */
export interface PlanColumns {
  r: number[];
  /** The near-duplicate cluster, or the sample's own id when it has none. */
  cluster: string[];
  /** What the split keeps together: the session, or the turn (the sample when it has none). */
  grp: string[];
  /** PLAN_APPROVED (approved or auto-approved) and PLAN_CORRECTED (a correction, or collected from one). */
  flags: number[];
  /** Only when the export balances labels: the ids (its seeded order) and the step and label (gate:write, wg:refused, ...). */
  id?: string[];
  label?: (string | null)[];
  /**
   * When the plan was read from the cluster index: each row's cluster as a number (0, 1, ... in cluster
   * order), so folding looks clusters up in an array instead of hashing every cluster id.
   */
  clusterNo?: Int32Array;
  clusters?: number;
}

export const PLAN_APPROVED = 1;
export const PLAN_CORRECTED = 2;

/**
 * The WHERE clause (alias s) of a selection and its parameters; the text depends only on which filters are set.
 * exclusions false: the caller found no exclusion at all (hasExclusions), so excluded_sessions is empty and is
 * not consulted: the view walks every session with three lookups each, a few ms per query at 4,000 sessions.
 */
function selectionWhere(sel: SampleSelection, exclusions = true): { where: string; params: Record<string, unknown> } {
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
  if (sel.since !== null) {
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
 * when the schema has it. The plan reads in chunks after rowid @after.
 */
function planSource(db: DB, sel: SampleSelection): string {
  if (sel.pairsOnly) return hasIndex(db, PAIR_INDEX) ? `dataset_samples s INDEXED BY ${PAIR_INDEX}` : 'dataset_samples s';
  return sel.since === null && sel.until === null ? 'dataset_samples s NOT INDEXED' : 'dataset_samples s';
}

function hasIndex(db: DB, name: string): boolean {
  return stmt(db, "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?)").pluck().get(name) === 1;
}

const LABEL_SQL = `CASE s.sample_type
    WHEN 'write_guardian_decision' THEN 'wg:' || coalesce(json_extract(s.content, '$.userCorrection.correctedDecision'), json_extract(s.content, '$.decision'))
    WHEN 'annotated_turn' THEN NULL
    ELSE CASE WHEN json_extract(s.content, '$.correctDecision') = 'NO_WRITE' THEN 'gate:no_write' ELSE 'gate:write' END END`;

/** Rows of the plan per query: each query's texts stay a few MB however large the workspace. */
const PLAN_CHUNK = 65_536;

/**
 * Every selected sample's plan columns, in rowid order. Each query hands over a chunk of rows as one JSON
 * array per column: better-sqlite3 spends about 1.7 µs on every row it returns, which was most of the plan
 * (184,419 rows: 0.93-1.24 s as rows, 0.45 s as arrays, parse included). Only what folding and splitting
 * need is read (each column read costs as much as the scan): the label and id only when balancing, the
 * turn only when splitting by turn; curator picks and edits are few and come from listPickedSampleRowids and
 * listEditedSampleRowids.
 */
export function listPlanColumns(
  db: DB,
  sel: SampleSelection,
  opts: { splitBy: 'session' | 'turn'; labels: boolean },
  chunk = PLAN_CHUNK,
): PlanColumns {
  if (byClusterIndex(db, sel, opts)) {
    const columns = planColumnsByCluster(db, sel, chunk);
    if (columns) return columns;
  }
  const { where, params } = selectionWhere(sel, hasExclusions(db));
  const inner = `SELECT s.rowid AS r, coalesce(s.cluster_id, s.id) AS cluster,
      ${opts.splitBy === 'turn' ? 'coalesce(s.turn_id, s.id)' : 's.session_id'} AS grp,
      (s.annotation_status IN ('approved', 'auto_approved')) * ${PLAN_APPROVED}
        + (s.correction_id IS NOT NULL OR s.collection_strategy IN ('manual_correction', 'missed_write')) * ${PLAN_CORRECTED} AS flags
      ${opts.labels ? `, s.id, ${LABEL_SQL} AS label` : ''}
     FROM ${planSource(db, sel)} WHERE ${where} AND s.rowid > @after ORDER BY s.rowid LIMIT ${chunk}`;
  const names = ['r', 'cluster', 'grp', 'flags', ...(opts.labels ? ['id', 'label'] : [])] as const;
  const sql = `SELECT max(r) AS last, count(*) AS n, ${names.map((c) => `json_group_array(${c})`).join(', ')} FROM (${inner})`;
  const s = stmt(db, sql).raw(true);
  const out: Record<string, unknown[]> = Object.fromEntries(names.map((c) => [c, []]));
  try {
    for (let after = 0; ;) {
      const [last, n, ...texts] = s.get({ ...params, after }) as [number | null, number, ...string[]];
      for (let c = 0; c < names.length; c++) {
        const values = JSON.parse(texts[c]!) as unknown[];
        const column = out[names[c]!]!;
        // the first chunk is the column itself (a preference plan is one chunk): no copy
        if (!column.length) out[names[c]!] = values;
        else for (const v of values) column.push(v);
      }
      if (n < chunk || last === null) break;
      after = last;
    }
  } finally {
    s.raw(false);
  }
  return inRowidOrder(out as unknown as PlanColumns);
}

/**
 * The plan's columns in rowid order. Each chunk's subquery is ordered by rowid and SQLite hands its rows to
 * json_group_array in that order; this only guards that assumption.
 */
function inRowidOrder(c: PlanColumns): PlanColumns {
  const ascending = c.r.every((r, i) => i === 0 || r > c.r[i - 1]!);
  if (ascending) return c;
  const order = c.r.map((_, i) => i).sort((a, b) => c.r[a]! - c.r[b]!);
  const pick = <T>(xs: T[] | undefined) => xs && order.map((i) => xs[i]!);
  return { r: pick(c.r)!, cluster: pick(c.cluster)!, grp: pick(c.grp)!, flags: pick(c.flags)!, id: pick(c.id), label: pick(c.label) };
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
function byClusterIndex(db: DB, sel: SampleSelection, opts: { splitBy: 'session' | 'turn'; labels: boolean }): boolean {
  if (sel.pairsOnly || sel.since !== null || sel.until !== null || opts.splitBy !== 'session' || opts.labels) return false;
  if (!hasIndex(db, CLUSTER_INDEX) || !hasIndex(db, STRATEGY_INDEX)) return false;
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
function planColumnsByCluster(db: DB, sel: SampleSelection, chunk: number): PlanColumns | null {
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
  const out: ClusterColumns = { r: [], cluster: [], grp: [], flags: [] };
  for (let after = ''; ;) {
    const c = read('s.cluster_id > @after', `LIMIT ${chunk}`)({ after });
    const n = c.r.length;
    if (n < chunk) {
      append(out, c, n);
      break;
    }
    // the last cluster may go on past the chunk: it is read whole, by the next chunk or here when it fills the chunk
    const last = c.cluster[n - 1]!;
    let k = n - 1;
    while (k > 0 && c.cluster[k - 1] === last) k--;
    if (k > 0) {
      append(out, c, k);
      after = c.cluster[k - 1]!;
    } else {
      append(out, read('s.cluster_id = @after', '')({ after: last }), Infinity);
      after = last;
    }
  }
  for (let i = 0; i < out.r.length; i++) if (corrected.has(out.r[i]!)) out.flags[i] = out.flags[i]! | PLAN_CORRECTED;
  return numberedInRowidOrder(out);
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

/** Appends the first n rows of c to out. */
function append(out: ClusterColumns, c: ClusterColumns, n: number): void {
  const m = Math.min(n, c.r.length);
  for (let i = 0; i < m; i++) {
    out.r.push(c.r[i]!);
    out.cluster.push(c.cluster[i]!);
    out.grp.push(c.grp[i]!);
    out.flags.push(c.flags[i]!);
  }
}

/** Cluster-ordered columns numbered by cluster and put in rowid order; null when they are not grouped by cluster. */
function numberedInRowidOrder(c: ClusterColumns): PlanColumns | null {
  const n = c.r.length;
  const no = new Int32Array(n);
  let k = -1;
  for (let i = 0; i < n; i++) {
    if (i === 0 || c.cluster[i] !== c.cluster[i - 1]) {
      if (i > 0 && c.cluster[i]! < c.cluster[i - 1]!) return null;
      k++;
    }
    no[i] = k;
  }
  const out: PlanColumns = { r: [], cluster: [], grp: [], flags: [], clusterNo: new Int32Array(n), clusters: k + 1 };
  let j = 0;
  for (const i of rowidOrder(c.r)) {
    out.r.push(c.r[i]!);
    out.cluster.push(c.cluster[i]!);
    out.grp.push(c.grp[i]!);
    out.flags.push(c.flags[i]!);
    out.clusterNo![j++] = no[i]!;
  }
  return out;
}

/**
 * The indexes of distinct rowids in ascending rowid order: a counting sort while rowids are dense
 * (collection only appends), a comparison sort when many samples were deleted.
 */
function rowidOrder(r: number[]): Int32Array {
  const n = r.length;
  let top = 0;
  for (const x of r) if (x > top) top = x;
  if (top > 8 * n + 1024) return Int32Array.from(r.keys()).sort((a, b) => r[a]! - r[b]!);
  const at = new Int32Array(top + 1).fill(-1);
  for (let i = 0; i < n; i++) at[r[i]!] = i;
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
export function listPlannedSamplePage<Row>(db: DB, sel: SampleSelection, columns: string, rowids: number[]): (Row & { _rowid: number })[] {
  // excluded_sessions walks every session each time it runs (1.75 ms at 4,000 sessions, once per page of
  // 1,000 samples); it selects sessions that match an exclusion, so without any it holds none
  const { where, params } = selectionWhere(sel, hasExclusions(db));
  // rowids ascend, and the join reads them in that order: no sort, and no index other than the rowid
  return allRows(
    stmt<Row & { _rowid: number }>(
      db,
      `SELECT s.rowid AS _rowid, ${columns} FROM json_each(@rowids) page CROSS JOIN dataset_samples s ON s.rowid = page.value WHERE ${where}`,
    ),
    { ...params, rowids: JSON.stringify(rowids) },
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
export function countPiiSamples(db: DB, sel: SampleSelection, rowids: number[]): number {
  const { where, params } = selectionWhere(sel);
  return stmt(
    db,
    `SELECT coalesce(sum(s.contains_pii), 0) FROM dataset_samples s WHERE ${where} AND s.rowid IN (SELECT value FROM json_each(@rowids))`,
  )
    .pluck()
    .get({ ...params, rowids: JSON.stringify(rowids) }) as number;
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
