// What an export holds, decided before a byte is written: the selection (approved and auto-approved at
// or above the minimum quality by default), one representative per near-duplicate cluster (the
// curator's pick, else a corrected or edited sample, else the first), optional label balancing, and
// the train/validation split with its fallback. Reads only small columns, so it stays cheap.
import { hash } from 'node:crypto';
import { EXPORT_FORMATS, SAMPLE_TYPES, type DataSplit, type ExportFormat, type SampleType } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { ServiceContext } from '../context';
import {
  ID_KEY_WORDS,
  PLAN_APPROVED,
  PLAN_CORRECTED,
  countExportableSamples,
  listEditedSampleRowids,
  listPickedSampleRowids,
  listPlanColumns,
  listSampleIdsByRowid,
  type IdKey,
  type PlanColumns,
  type SampleSelection,
} from '../db/repositories/exportSamples';
import {
  TARGET_MODELS,
  resolveDatasetConfig,
  type DatasetCollectionConfig,
  type DatasetCollectionConfigInput,
  type TargetModel,
} from './config';
import { sortedIndex } from './sortedIndex';

export interface ExportOptions {
  format: ExportFormat;
  /** Folder to write into (created). Default: <workspace>/.openclaw-reflection/exports/dataset-<format>-<time>. */
  outDir?: string;
  /** Share of samples in train; default 0.8. */
  trainSplit?: number;
  /** session (default): no conversation on both sides. turn: finer, for one or two sessions; asked for explicitly. */
  splitBy?: 'session' | 'turn';
  /** Seed of the split and of balancing; the same seed and data give the same files. */
  seed?: string | number;
  /** Also pending and needs_review samples (default: only approved and auto-approved). */
  includeUnreviewed?: boolean;
  /** Older name: onlyApproved false means includeUnreviewed. */
  onlyApproved?: boolean;
  /** Minimum quality score; default: the collection config's positiveCriteria.minQualityScore. */
  minQuality?: number;
  /** No quality floor at all. */
  includeBelowQuality?: boolean;
  /** Downsample the majority label of each step to the minority's count (seeded). */
  balance?: boolean;
  /** Raw PII instead of the redacted content; recorded in the dataset_exports row. */
  includePii?: boolean;
  /** CSV only: start files with a UTF-8 BOM (Excel shows Chinese). */
  bom?: boolean;
  sampleTypes?: SampleType[];
  /** Only samples of conversations from this time on (ms; a sample carries its decision's time). */
  since?: number;
  /** Only samples of conversations before this time (ms). */
  until?: number;
  /** Rows per page read from the database. */
  pageSize?: number;
  /** Replace the files of an earlier export in outDir (checked by the caller before writing). */
  overwrite?: boolean;
  /** Collection config: minimum quality, licence and target model come from it. */
  config?: DatasetCollectionConfigInput | DatasetCollectionConfig;
}

export interface Resolved {
  format: ExportFormat;
  trainSplit: number;
  splitBy: 'session' | 'turn';
  seed: string;
  includeUnreviewed: boolean;
  minQuality: number | null;
  balance: boolean;
  includePii: boolean;
  bom: boolean;
  sampleTypes: SampleType[];
  since: number | null;
  until: number | null;
  pageSize: number;
  cfg: DatasetCollectionConfig;
  targetModel: TargetModel;
}

/** Formats that train a model: they render gate and guardian samples, never the annotated turn. */
export const TRAINING_FORMATS: readonly ExportFormat[] = ['alpaca', 'sharegpt', 'openai', 'openai-dpo', 'ranking', 'kto', 'parquet'];
export const PREFERENCE_FORMATS: readonly ExportFormat[] = ['openai-dpo', 'ranking'];
const TRAINING_TYPES: SampleType[] = ['memory_gate_positive', 'memory_gate_negative', 'write_guardian_decision'];

export function resolveExport(o: ExportOptions): Resolved {
  if (!o || !EXPORT_FORMATS.includes(o.format)) throw new AppError('Invalid', `export: format must be one of ${EXPORT_FORMATS.join(', ')}`);
  const trainSplit = o.trainSplit ?? 0.8;
  if (!(trainSplit >= 0 && trainSplit <= 1)) throw new AppError('Invalid', 'export: trainSplit must be between 0 and 1');
  if (o.minQuality !== undefined && !(o.minQuality >= 0 && o.minQuality <= 1))
    throw new AppError('Invalid', 'export: minQuality must be between 0 and 1');
  if (o.splitBy !== undefined && o.splitBy !== 'session' && o.splitBy !== 'turn')
    throw new AppError('Invalid', 'export: splitBy must be session or turn');
  for (const [k, v] of [
    ['since', o.since],
    ['until', o.until],
  ] as const) {
    if (v !== undefined && !(Number.isInteger(v) && v >= 0))
      throw new AppError('Invalid', `export: ${k} must be a time in ms since the epoch`);
  }
  if (o.since !== undefined && o.until !== undefined && o.since >= o.until)
    throw new AppError('Invalid', 'export: since must be before until');
  const asked = o.sampleTypes?.length ? o.sampleTypes : [...SAMPLE_TYPES];
  for (const t of asked) if (!SAMPLE_TYPES.includes(t)) throw new AppError('Invalid', `export: unknown sample type ${t}`);
  let types = TRAINING_FORMATS.includes(o.format) ? asked.filter((t) => TRAINING_TYPES.includes(t)) : asked;
  if (PREFERENCE_FORMATS.includes(o.format)) types = types.filter((t) => t === 'memory_gate_negative' || t === 'write_guardian_decision');
  if (!types.length)
    throw new AppError('Invalid', `export: ${o.format} cannot hold ${asked.join(', ')} (annotated turns are exported as raw or csv)`);
  const cfg = resolveDatasetConfig(o.config);
  return {
    format: o.format,
    trainSplit,
    splitBy: o.splitBy ?? 'session',
    seed: String(o.seed ?? 'reflection'),
    includeUnreviewed: Boolean(o.includeUnreviewed ?? o.onlyApproved === false),
    minQuality: o.includeBelowQuality ? null : (o.minQuality ?? cfg.positiveCriteria.minQualityScore),
    balance: Boolean(o.balance),
    includePii: Boolean(o.includePii),
    bom: Boolean(o.bom),
    sampleTypes: types,
    since: o.since ?? null,
    until: o.until ?? null,
    pageSize: o.pageSize ?? 1000,
    cfg,
    targetModel: cfg.export.targetModel,
  };
}

export const targetModelOf = (r: Resolved) => ({ model: r.targetModel, ...TARGET_MODELS[r.targetModel] });

/** Which samples the export takes, before clusters are folded. */
export function selectionOf(r: Resolved): SampleSelection {
  return {
    sampleTypes: r.sampleTypes,
    includeUnreviewed: r.includeUnreviewed,
    minQuality: r.minQuality,
    since: r.since,
    until: r.until,
    pairsOnly: PREFERENCE_FORMATS.includes(r.format),
  };
}

export interface FoldedSample {
  sampleId: string;
  /** The cluster member exported in its place. */
  keptSampleId: string;
}

export interface ExportPlan {
  /** The rowids of the samples to write, ascending: the export reads them page by page. */
  rowids: Float64Array;
  /**
   * 1 where the sample at the same index of rowids goes to validation, 0 to train. Typed arrays rather than a
   * map by rowid: 1,240,000 samples to write (1,000,000 decisions) took a map of about 60 MB, these 11 MB.
   */
  validation: Uint8Array;
  /** Approved samples folded into another member of their near-duplicate cluster: how many, and the first FOLDED_LISTED. */
  foldedApproved: { count: number; listed: FoldedSample[] };
  foldedTotal: number;
  /** Samples left out by --balance. */
  balancedOut: number;
  selected: number;
  /** Notes for the summary and the card (split fallback, achieved ratio). */
  notes: string[];
  achievedTrainShare: number | null;
  validationWritten: boolean;
}

/** Folded approved samples the summary lists by id. */
const FOLDED_LISTED = 200;

/**
 * The seeded order of ids (samples to balance, groups to split): the first ID_KEY_WORDS 32-bit words of
 * SHA-256(seed NUL id), big-endian. Compared word by word they order ids as the digest's hex text did (up to a
 * tie in 96 bits, about n² / 2^97), in 12 bytes instead of a 64-letter string. A balanced or turn-split plan at
 * 1,000,000 decisions orders about a million ids.
 */
const seededWords =
  (seed: string): IdKey =>
  (id, out, at) => {
    const d = hash('sha256', `${seed}\u0000${id}`, 'buffer');
    for (let w = 0; w < ID_KEY_WORDS; w++) out[at * ID_KEY_WORDS + w] = d.readUInt32BE(4 * w);
  };

/** The order of the keys at a and b (ID_KEY_WORDS words each): negative, 0 or positive. */
function compareKeys(keys: Uint32Array, a: number, b: number): number {
  for (let w = 0; w < ID_KEY_WORDS; w++) {
    const x = keys[a * ID_KEY_WORDS + w]!;
    const y = keys[b * ID_KEY_WORDS + w]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * Sorts values (non-negative integers) in place by the key of each (at keys[keyRow(v) * ID_KEY_WORDS]),
 * equal keys by value. Each value is packed with its key's first bits into one double and the doubles
 * are sorted natively; only values whose packed bits tie are compared by their whole keys. Sorting
 * 697,000 turn groups with a comparator took about 14 million calls and a boxed copy of the array.
 */
export function sortByKeys(values: Int32Array, keys: Uint32Array, keyRow: (v: number) => number): Int32Array {
  const n = values.length;
  const valueBits = Math.max(1, Math.ceil(Math.log2(values.reduce((m, v) => Math.max(m, v), 0) + 1)));
  const drop = 2 ** Math.max(0, valueBits - 21); // a double holds 53 bits: the key's first 53 - valueBits
  const scale = 2 ** valueBits;
  const packed = new Float64Array(n);
  for (let j = 0; j < n; j++) packed[j] = Math.floor(keys[keyRow(values[j]!) * ID_KEY_WORDS]! / drop) * scale + values[j]!;
  packed.sort();
  for (let j = 0; j < n; j++) values[j] = packed[j]! % scale;
  // a run of equal prefixes came out by value: order it by the whole keys
  const byKeys = (a: number, b: number) => compareKeys(keys, keyRow(a), keyRow(b)) || a - b;
  for (let a = 0, b = 1; a < n; a = b, b = a + 1) {
    while (b < n && Math.floor(packed[b]! / scale) === Math.floor(packed[a]! / scale)) b++;
    if (b - a > 1) values.subarray(a, b).sort(byKeys);
  }
  return values;
}

/** The curator's picks and (not undone) edits, by rowid: few, so read whole rather than per sample. */
interface Curated {
  picked: Set<number>;
  edited: Set<number>;
}

const curatedOf = (ctx: ServiceContext): Curated => ({
  picked: new Set(listPickedSampleRowids(ctx.db)),
  edited: new Set(listEditedSampleRowids(ctx.db)),
});

/** Whether row a represents a cluster better than row b: the curator's pick, then a corrected or edited sample, then the oldest. */
function better(rows: PlanColumns, a: number, b: number, curated: Curated): boolean {
  const ra = rows.r[a]!;
  const rb = rows.r[b]!;
  const ap = curated.picked.has(ra);
  const bp = curated.picked.has(rb);
  if (ap !== bp) return ap;
  const ac = rows.flags[a]! & PLAN_CORRECTED || curated.edited.has(ra) ? 1 : 0;
  const bc = rows.flags[b]! & PLAN_CORRECTED || curated.edited.has(rb) ? 1 : 0;
  if (ac !== bc) return ac > bc;
  return ra < rb;
}

/**
 * The plan works on the selection's columns (listPlanColumns) by row index: a row object per sample, with
 * its id, was most of the plan's garbage, and only the few folded samples the summary lists need an id.
 */
export function planExport(ctx: ServiceContext, r: Resolved): ExportPlan {
  const keyOf = seededWords(r.seed);
  const rows = listPlanColumns(ctx.db, selectionOf(r), { splitBy: r.splitBy, groupKey: keyOf, labels: r.balance ? keyOf : null });
  const n = rows.r.length;
  const winnerOf = clusterWinners(ctx, rows);
  // row indexes, in a typed array: at 1,000,000 decisions a plan chooses 1,240,000 samples
  const all = new Int32Array(n);
  let kept = 0;
  const folded: [number, number][] = [];
  let foldedApproved = 0;
  for (let i = 0; i < n; i++) {
    const winner = winnerOf(i);
    if (winner === i) all[kept++] = i;
    else if (rows.flags[i]! & PLAN_APPROVED) {
      if (folded.length < FOLDED_LISTED) folded.push([rows.r[i]!, rows.r[winner]!]);
      foldedApproved++;
    }
  }
  let chosen: Int32Array = all.subarray(0, kept);
  const before = chosen.length;
  if (r.balance) chosen = balanceLabels(rows, chosen);
  const { validation, notes, achieved, validationWritten } = splitRows(rows, chosen, r);
  return {
    rowids: rowidsOf(rows, chosen),
    validation,
    foldedApproved: { count: foldedApproved, listed: foldedSamples(ctx, folded) },
    foldedTotal: n - before,
    balancedOut: before - chosen.length,
    selected: n,
    notes,
    achievedTrainShare: achieved,
    validationWritten,
  };
}

/**
 * The rowids of the chosen rows. Not Float64Array.from(chosen, f): from an iterable it first lists every
 * value in a plain array, about 30 MB of boxed numbers for the 1,240,000 rows of a csv export at 1,000,000
 * decisions, which made that export's peak RSS.
 */
function rowidsOf(rows: PlanColumns, chosen: Int32Array): Float64Array {
  const rowids = new Float64Array(chosen.length);
  for (let c = 0; c < chosen.length; c++) rowids[c] = rows.r[chosen[c]!]!;
  return rowids;
}

/**
 * Each cluster's representative (a row index), as a function of a row's index. Clusters are looked up by
 * number (listPlanColumns numbers them): hashing the id of each of 184,000 samples twice was a fifth of
 * csv's plan.
 */
function clusterWinners(ctx: ServiceContext, rows: PlanColumns): (i: number) => number {
  const n = rows.r.length;
  let curated: Curated | null = null;
  const { clusterNo } = rows;
  const winners = new Int32Array(rows.clusters).fill(-1);
  for (let i = 0; i < n; i++) {
    const cur = winners[clusterNo[i]!]!;
    if (cur < 0 || better(rows, i, cur, (curated ??= curatedOf(ctx)))) winners[clusterNo[i]!] = i;
  }
  return (i) => winners[clusterNo[i]!]!;
}

/** Folded samples by id, from [folded rowid, kept rowid] pairs. */
function foldedSamples(ctx: ServiceContext, pairs: [number, number][]): FoldedSample[] {
  if (!pairs.length) return [];
  const ids = listSampleIdsByRowid(ctx.db, pairs.flat());
  return pairs.map(([folded, kept]) => ({ sampleId: ids.get(folded)!, keptSampleId: ids.get(kept)! }));
}

/**
 * Each distinct label text's (step, label) pair as a number, -1 for an empty text (no part in balancing),
 * and the step of each pair. A text is split at ':' into its step and label (gate:write, wg:refused).
 */
function labelPairs(texts: string[]): { pairOf: Int32Array; stepOf: number[]; steps: number } {
  const pairOf = new Int32Array(texts.length).fill(-1);
  const pairs = new Map<string, number>();
  const steps = new Map<string, number>();
  const stepOf: number[] = [];
  texts.forEach((text, l) => {
    if (!text) return;
    const [step = '', label = ''] = text.split(':');
    const pair = `${step}:${label}`; // neither holds a ':'
    let p = pairs.get(pair);
    if (p === undefined) {
      pairs.set(pair, (p = pairs.size));
      if (!steps.has(step)) steps.set(step, steps.size);
      stepOf.push(steps.get(step)!);
    }
    pairOf[l] = p;
  });
  return { pairOf, stepOf, steps: steps.size };
}

/**
 * Per step, keeps as many of each label as the rarest label has, chosen by seeded hash (rows: indexes into
 * rows; the plan read each id's key, seededWords). Keys equal in their 96 bits keep rowid order. The rows of
 * each label are gathered into one typed array, a bucket per label: lists of row numbers and a split
 * string per row took a balanced plan at 1,000,000 decisions past 250 MB.
 */
function balanceLabels(rows: PlanColumns, chosen: Int32Array): Int32Array {
  const labelNo = rows.labelNo!;
  const { pairOf, stepOf, steps } = labelPairs(rows.labels!);
  const pairOfRow = (i: number) => (labelNo[i]! < 0 ? -1 : pairOf[labelNo[i]!]!);
  // bucket p holds the rows of pair p, from start[p] to start[p + 1]
  const start = new Int32Array(stepOf.length + 1);
  for (const i of chosen) start[pairOfRow(i) + 1]!++; // rows without a pair count in start[0], reset below
  start[0] = 0;
  for (let p = 0; p < stepOf.length; p++) start[p + 1]! += start[p]!;
  const bucket = new Int32Array(start[stepOf.length]!);
  const next = start.slice(0, stepOf.length);
  for (const i of chosen) {
    const p = pairOfRow(i);
    if (p >= 0) bucket[next[p]!++] = i;
  }
  // per step, how many of its labels are present and the rarest one's count
  const present = new Int32Array(steps);
  const keep = new Int32Array(steps).fill(2 ** 31 - 1);
  stepOf.forEach((s, p) => {
    const size = start[p + 1]! - start[p]!;
    if (size) [present[s], keep[s]] = [present[s]! + 1, Math.min(keep[s]!, size)];
  });
  const keys = rows.idKey!;
  const drop = new Uint8Array(rows.r.length);
  stepOf.forEach((s, p) => {
    if (present[s]! < 2 || start[p + 1]! - start[p]! <= keep[s]!) return;
    const list = sortByKeys(bucket.subarray(start[p]!, start[p + 1]!), keys, (i) => i);
    for (let k = keep[s]!; k < list.length; k++) drop[list[k]!] = 1;
  });
  return chosen.filter((i) => !drop[i]);
}

/**
 * Groups (sessions, or turns when asked) in seeded-hash order fill train up to the split share, skipping
 * a group that would overshoot more than it helps; the rest is validation. When that leaves one side empty, everything goes to train and no validation
 * file is written: a trainer would choke on an empty file, and the card must not list one.
 */
function splitRows(
  rows: PlanColumns,
  chosen: Int32Array,
  r: Resolved,
): { validation: Uint8Array; notes: string[]; achieved: number | null; validationWritten: boolean } {
  const { groupOf, groups, sizes } = groupsOf(rows, chosen);
  const train = new Uint8Array(groups.length);
  const target = r.trainSplit * chosen.length;
  let acc = 0;
  for (const k of seededOrder(rows.groupKey, groups)) {
    if (acc >= target) break;
    // a large group that would overshoot the target by more than it now falls short waits for validation
    const n = sizes[k]!;
    if (acc > 0 && acc + n - target > target - acc) continue;
    train[k] = 1;
    acc += n;
  }
  const notes: string[] = [];
  let validationWritten = acc < chosen.length;
  if (acc === 0 && chosen.length) {
    // trainSplit 0 or a single group that overshoots: train must never be the empty side
    train.fill(1);
    acc = chosen.length;
    validationWritten = false;
  }
  if (!validationWritten && r.trainSplit < 1 && chosen.length) {
    const unit = r.splitBy === 'turn' ? 'turns' : 'sessions';
    notes.push(
      `no validation split: ${groups.length} ${unit} cannot be split ${r.trainSplit} / ${Math.round((1 - r.trainSplit) * 100) / 100} without breaking a ${unit === 'turns' ? 'turn' : 'conversation'} apart; ` +
        (r.splitBy === 'session' ? 'every record is in train (ask for splitBy turn for a turn-level split)' : 'every record is in train'),
    );
  }
  const achieved = chosen.length ? Math.round((acc / chosen.length) * 1000) / 1000 : null;
  if (validationWritten && achieved !== null && Math.abs(achieved - r.trainSplit) > 0.1) {
    notes.push(`the ${r.splitBy}-grouped split reached ${achieved} train instead of ${r.trainSplit}`);
  }
  const validation = new Uint8Array(chosen.length);
  for (let c = 0; c < chosen.length; c++) validation[c] = train[groupOf[c]!] ? 0 : 1;
  return { validation, notes, achieved, validationWritten };
}

/**
 * The indexes of groups (the plan's group numbers of the chosen rows' groups) in the order of their seeded
 * keys; keys equal in their 96 bits keep the order of first appearance.
 */
function seededOrder(keys: Uint32Array, groups: Int32Array): Int32Array {
  return sortByKeys(
    new Int32Array(groups.length).map((_, k) => k),
    keys,
    (k) => groups[k]!,
  );
}

/**
 * The groups of the chosen rows, numbered in order of first appearance, with their sizes, and each chosen
 * row's group number: one lookup per row instead of three (count, then train or validation), which was
 * most of csv's split (128,010 rows). The columns number every selected row's group already; this keeps
 * the groups of the chosen rows only (groups[k]: the plan's number of group k). Typed arrays sized by the
 * plan's group count: lists grown by push held about 30 MB of copies for 697,000 turns at 1,000,000 decisions.
 */
function groupsOf(rows: PlanColumns, chosen: Int32Array): { groupOf: Int32Array; groups: Int32Array; sizes: Int32Array } {
  const numbers = new Int32Array(rows.groups).fill(-1);
  const groups = new Int32Array(rows.groups);
  const sizes = new Int32Array(rows.groups);
  const groupOf = new Int32Array(chosen.length);
  let count = 0;
  for (let c = 0; c < chosen.length; c++) {
    const g = rows.grpNo[chosen[c]!]!;
    let k = numbers[g]!;
    if (k < 0) {
      k = count++;
      numbers[g] = k;
      groups[k] = g;
    }
    sizes[k]!++;
    groupOf[c] = k;
  }
  return { groupOf, groups: groups.subarray(0, count), sizes: sizes.subarray(0, count) };
}

/** The split of the planned sample with this rowid; undefined when the plan does not hold it. */
export function splitOf(plan: Pick<ExportPlan, 'rowids' | 'validation'>, rowid: number): DataSplit | undefined {
  const at = sortedIndex(plan.rowids, rowid);
  if (plan.rowids[at] !== rowid) return undefined;
  return plan.validation[at] ? 'validation' : 'train';
}

/** Why an export would hold nothing, and what to do about it. */
export function emptyExportMessage(ctx: ServiceContext, r: Resolved): string {
  const { all, waiting, approved } = countExportableSamples(ctx.db);
  if (!all)
    return 'export: the workspace has no dataset samples yet; run `reflection dataset collect` (or Collect in the Datasets view) first';
  const hints = [];
  if (!r.includeUnreviewed && waiting)
    hints.push(`${waiting} samples wait for review: approve them, or include unreviewed samples (--include-unreviewed)`);
  if (r.minQuality !== null && approved)
    hints.push(`approved samples below quality ${r.minQuality} are left out: lower --min-quality or pass --include-below-quality`);
  if (PREFERENCE_FORMATS.includes(r.format)) hints.push(`${r.format} needs corrected, rolled-back or refused writes (preference pairs)`);
  return `export: nothing to export with these options (${all} samples in the workspace). ${hints.join('; ') || 'Widen the time range or sample types.'}`;
}
