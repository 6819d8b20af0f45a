// Select → records: the planned samples read page by page in rowid order, each turned into what the
// export writes for it (redacted content, a pseudonymous session label when the key holds PII, the
// format's records). Shared by the export, its preview, the eval export and the fleet dataset.
// Each format reads only the columns its records use, and the content to write is chosen in SQL (the
// redacted copy, or the raw one when the curator asked or the sample was never checked): reading and
// parsing a column costs about as much as everything else done with a record.
import { createHash } from 'node:crypto';
import type { AnnotationStatus, DataSplit, ExportFormat, SampleType } from '../../shared/domain';
import { listPlannedSamplePage } from '../db/repositories/exportSamples';
import type { ServiceContext } from '../context';
import { loadValueRules, rowWithValueRules, type ValueRule } from '../curation/piiValues';
import { rawLine, recordsOf, taughtLabel, type ExportedSample, type RecordSample, type TaughtLabel } from './exportRecords';
import { isStringifyForm } from './canonicalJson';
import { selectionOf, splitOf, type ExportPlan, type Resolved } from './exportPlan';
import { taskOf, type StoredJson, type Task } from './formats';
import { loadPiiDetector, redactContent, scanContent, type Detect, type StoredPiiSpan } from './privacy';
import { SessionValues, hideSessionValues } from './sessionPrivacy';
import type { DatasetSample, SampleContent, SampleFeedback, SampleLabels } from './types';
import type { QualityFactors } from './quality';

export interface PageItem {
  split: DataSplit;
  sample: ExportedSample;
  content: SampleContent;
  /** What the content teaches (raw: only its step and label, and null for an annotated turn; its records do not need it). */
  task: Task | TaughtLabel | null;
  /** The format's records; their exact texts when rendered is true. */
  records: unknown[];
  /** The records are the texts the writer writes (raw, for the writer: no record object is built). */
  rendered?: boolean;
}

/** The content an export writes: redacted unless includePii, scanned now if it never was. */
export function exportContent(s: DatasetSample, r: Pick<Resolved, 'includePii'>, detect: Detect | null): SampleContent {
  if (r.includePii) return s.content;
  if (!s.privacyChecked && detect) return scannedContent(s.content, detect);
  return s.piiRedactedContent ?? s.content;
}

/** A sample never checked (collected without a detector) is checked now rather than exported raw. */
function scannedContent(content: SampleContent, detect: Detect): SampleContent {
  const spans = scanContent(content, detect, {});
  return spans.length ? (redactContent(content, spans).redacted as SampleContent) : content;
}

/** A page row: the columns every format reads, the content to write (body), and the format's own columns. */
interface ExportRow {
  _rowid: number;
  id: string;
  sample_type: SampleType;
  session_id: string;
  annotation_status: AnnotationStatus;
  quality_score: number | null;
  privacy_checked: number;
  body: string;
  // per-value rules (rowWithValueRules) and the formats that carry lineage and labels
  pii_spans?: string | null;
  contains_pii?: number;
  created_at?: number;
  content?: string | null;
  pii_redacted_content?: string | null;
  turn_id?: string | null;
  decision_id?: string | null;
  audit_id?: string | null;
  correction_id?: string | null;
  annotated_by?: string | null;
  quality_factors?: string | null;
  feedback_signals?: string | null;
  fingerprint?: string | null;
  cluster_id?: string | null;
  labels?: string | null;
  collection_strategy?: string | null;
}

const BASE_COLUMNS = ['s.id', 's.sample_type', 's.session_id', 's.annotation_status', 's.quality_score', 's.privacy_checked'];
/** The stored redaction of a checked sample (an empty one counts as none), else the content. */
const REDACTED_BODY =
  "CASE WHEN s.privacy_checked = 1 AND s.pii_redacted_content <> '' THEN s.pii_redacted_content ELSE s.content END AS body";
/** A sample with spans is redacted again from its content and spans when a per-value rule applies to it. */
const RULE_COLUMNS = [
  's.pii_spans',
  's.contains_pii',
  's.created_at',
  'CASE WHEN s.pii_spans IS NOT NULL THEN s.content END AS content',
  'CASE WHEN s.pii_spans IS NOT NULL THEN s.pii_redacted_content END AS pii_redacted_content',
];
/** What the records of raw, csv and parquet read besides the content (formats.ts, trainingRows.ts). */
const RECORD_COLUMNS: Partial<Record<ExportFormat, string[]>> = {
  raw: ['turn_id', 'decision_id', 'audit_id', 'correction_id', 'quality_factors', 'labels', 'feedback_signals', 'contains_pii', 'pii_spans']
    .concat(['fingerprint', 'cluster_id', 'collection_strategy', 'created_at'])
    .map((c) => `s.${c}`),
  csv: ['s.quality_factors', 's.labels', 's.created_at'],
  parquet: ['turn_id', 'decision_id', 'audit_id', 'correction_id', 'annotated_by', 'quality_factors', 'contains_pii', 'created_at'].map(
    (c) => `s.${c}`,
  ),
};

function pageColumns(r: Resolved, withRules: boolean): string {
  const columns = new Set([...BASE_COLUMNS, r.includePii ? 's.content AS body' : REDACTED_BODY]);
  if (withRules) for (const c of RULE_COLUMNS) columns.add(c);
  for (const c of RECORD_COLUMNS[r.format] ?? []) columns.add(c);
  return [...columns].join(', ');
}

const parse = <T>(s: string | null | undefined, fallback: T): T => (s ? (JSON.parse(s) as T) : fallback);

/** Labels that are not read: raw and csv write the stored text instead (StoredJson.labels). */
const UNREAD_LABELS: SampleLabels = Object.freeze({}) as SampleLabels;

/** A stored text and whether it is what JSON.stringify writes for its value. */
interface KnownJson<T> {
  value: T;
  stringifyForm: boolean;
}

/**
 * Quality factors parsed once per distinct text: a workspace holds a few dozen (three rounded scores).
 * The parsed object is shared, so the records only read it.
 */
class QualityFactorsCache {
  private readonly known = new Map<string, KnownJson<QualityFactors | null>>();
  of(text: string | null | undefined): KnownJson<QualityFactors | null> {
    if (!text) return { value: null, stringifyForm: false };
    let k = this.known.get(text);
    if (!k) {
      // a workspace with many distinct texts starts over rather than growing without bound
      if (this.known.size >= 10_000) this.known.clear();
      k = { value: JSON.parse(text) as QualityFactors | null, stringifyForm: isStringifyForm(text) };
      this.known.set(text, k);
    }
    return k;
  }
}

/**
 * The sample fields a format's records read, from the columns pageColumns chose for it. (Each object
 * is written out whole: spreading one into another takes V8's slow path, ten times the cost.)
 * json: raw and csv, where the stored labels text is written as it is when it can be (then not parsed).
 */
function recordSample(
  format: ExportFormat,
  row: ExportRow,
  factors: KnownJson<QualityFactors | null> | null,
  json: StoredJson | null,
): ExportedSample | RecordSample {
  if (!RECORD_COLUMNS[format]) {
    return {
      id: row.id,
      sampleType: row.sample_type,
      sessionId: row.session_id,
      annotationStatus: row.annotation_status,
      qualityScore: row.quality_score,
    };
  }
  return {
    id: row.id,
    sampleType: row.sample_type,
    sessionId: row.session_id,
    annotationStatus: row.annotation_status,
    qualityScore: row.quality_score,
    turnId: row.turn_id ?? null,
    decisionId: row.decision_id ?? null,
    auditId: row.audit_id ?? null,
    correctionId: row.correction_id ?? null,
    annotatedBy: row.annotated_by ?? null,
    qualityFactors: factors ? factors.value : parse<QualityFactors | null>(row.quality_factors, null),
    containsPii: row.contains_pii === 1,
    piiSpans: format === 'raw' ? parse<StoredPiiSpan[]>(row.pii_spans, []) : [],
    feedbackSignals: row.feedback_signals === '[]' ? [] : parse<SampleFeedback[]>(row.feedback_signals, []),
    fingerprint: row.fingerprint ?? null,
    clusterId: row.cluster_id ?? null,
    labels: json?.labels ? UNREAD_LABELS : parse<SampleLabels>(row.labels, {}),
    collectionStrategy: row.collection_strategy ?? null,
    createdAt: row.created_at ?? 0,
  };
}

type Rules = (ValueRule & { appliesAfter?: number })[];

/** The row with the curator's per-value decisions applied (they also cover samples collected after them). */
function withValueRules(row: ExportRow, rules: Rules): ExportRow {
  if (!rules.length || !row.pii_spans) return row;
  const stored = {
    session_id: row.session_id,
    created_at: row.created_at!,
    content: row.content!,
    pii_spans: row.pii_spans,
    pii_redacted_content: row.pii_redacted_content ?? null,
    contains_pii: row.contains_pii!,
  };
  const ruled = rowWithValueRules(stored, rules);
  if (ruled === stored) return row;
  const body = row.privacy_checked === 1 && ruled.pii_redacted_content ? ruled.pii_redacted_content : ruled.content;
  return { ...row, body, pii_spans: ruled.pii_spans, contains_pii: ruled.contains_pii, pii_redacted_content: ruled.pii_redacted_content };
}

/**
 * Session keys can carry personal data (a WhatsApp target is a phone number): without includePii a
 * key in which the detector finds anything is exported as a stable pseudonym.
 */
function sessionLabel(sessionId: string, detect: Detect | null, cache: Map<string, string>): string {
  if (!detect) return sessionId;
  let label = cache.get(sessionId);
  if (label === undefined) {
    label = detect(sessionId.replace(/[:/]/g, ' '), {}).length
      ? `session-${createHash('sha256').update(sessionId).digest('hex').slice(0, 16)}`
      : sessionId;
    cache.set(sessionId, label);
  }
  return label;
}

/**
 * The planned samples, read page by page (pages()) and turned one by one into what the export writes
 * (item()). The writer renders each item before making the next, so a page's parsed contents and records
 * never live at once: they die young, which keeps the garbage collector's work small.
 */
export class ExportReader {
  private readonly selection;
  private readonly rules: Rules;
  private readonly sessionValues: SessionValues;
  private readonly columns: string;
  /** Only raw, csv and parquet write the session key. */
  private readonly labelled: boolean;
  private readonly labels = new Map<string, string>();
  /** The PII detector, loaded when a page first needs it (a session key to label, a sample never checked). */
  private detect: Detect | null = null;
  private readonly factors = new QualityFactorsCache();
  /** raw and csv write the stored content, labels and quality factors texts as they are when they can. */
  private readonly storedJson: boolean;
  /** raw for the writer: an item's records are their texts (the record objects are never built). */
  private readonly rendered: boolean;

  /** forWriter: the caller only writes the records' texts (the export itself, not a preview). */
  constructor(
    private readonly ctx: ServiceContext,
    private readonly r: Resolved,
    private readonly plan: ExportPlan,
    forWriter = false,
  ) {
    this.storedJson = r.format === 'raw' || r.format === 'csv';
    this.rendered = forWriter && r.format === 'raw';
    this.selection = selectionOf(r);
    // Per-value PII decisions (curation/piiValues) also cover samples collected after they were made.
    this.rules = r.includePii ? [] : loadValueRules(ctx);
    this.sessionValues = new SessionValues(ctx.db, this.rules);
    this.columns = pageColumns(r, this.rules.length > 0);
    this.labelled = RECORD_COLUMNS[r.format] !== undefined && !r.includePii;
  }

  /** The planned rows, page by page in rowid order, with what item() needs for them loaded. */
  async *pages(pageSize = this.r.pageSize): AsyncGenerator<ExportRow[]> {
    for (let at = 0; at < this.plan.rowids.length; at += pageSize) {
      const rowids = this.plan.rowids.slice(at, at + pageSize);
      const rows = inRowidOrder(listPlannedSamplePage<ExportRow>(this.ctx.db, this.selection, this.columns, rowids));
      if (!this.r.includePii) {
        this.sessionValues.load(rows.map((x) => x.session_id));
        if (!this.detect && (this.labelled || rows.some((x) => x.privacy_checked !== 1))) this.detect = await loadPiiDetector();
      }
      yield rows;
    }
  }

  /** What the export writes for one row of pages(), or null when it writes nothing for it. */
  item(stored: ExportRow): PageItem | null {
    const split = splitOf(this.plan, stored._rowid);
    if (!split) return null;
    const { r } = this;
    const row = withValueRules(stored, this.rules);
    const parsed = JSON.parse(row.body) as SampleContent;
    let content = parsed;
    if (!r.includePii) {
      if (row.privacy_checked !== 1 && this.detect) content = scannedContent(content, this.detect);
      content = hideSessionValues(content, this.sessionValues.of(row.session_id));
    }
    const factors = RECORD_COLUMNS[r.format] ? this.factors.of(row.quality_factors) : null;
    const json = this.storedJson ? this.jsonOf(row, row === stored && content === parsed, factors) : null;
    const sample = recordSample(r.format, row, factors, json);
    // raw's records write the content as it is: its tally needs only the step and label
    const full = r.format === 'raw' ? null : taskOf(content);
    const task = full ?? taughtLabel(content);
    const label = this.labelled ? sessionLabel(row.session_id, this.detect, this.labels) : row.session_id;
    if (this.rendered) {
      const line = rawLine(sample as RecordSample, content, label, json!);
      return { split, sample, content, task, records: [line], rendered: true };
    }
    const records = recordsOf(r.format, sample, content, label, full, json);
    return records.length ? { split, sample, content, task, records } : null;
  }

  /**
   * The stored texts raw and csv can write as they are. The content only when it is written as stored
   * (no value hidden or redacted now); the labels only where the record does not need them parsed.
   */
  private jsonOf(row: ExportRow, storedContent: boolean, factors: KnownJson<QualityFactors | null> | null): StoredJson {
    const labelsAsText = this.r.format === 'csv' || this.rendered;
    return {
      content: storedContent && isStringifyForm(row.body) ? row.body : null,
      labels: labelsAsText && row.labels && isStringifyForm(row.labels) ? row.labels : null,
      qualityFactors: factors?.stringifyForm ? row.quality_factors! : null,
    };
  }
}

/** Yields the planned samples page by page, in rowid order, with their records (reading only planned rows). */
export async function* exportPages(ctx: ServiceContext, r: Resolved, plan: ExportPlan): AsyncGenerator<PageItem[]> {
  const reader = new ExportReader(ctx, r, plan);
  for await (const rows of reader.pages()) {
    const items: PageItem[] = [];
    for (const row of rows) {
      const item = reader.item(row);
      if (item) items.push(item);
    }
    yield items;
  }
}

/** The page query returns rows in the order of its rowid list; this only guards that assumption. */
function inRowidOrder<T extends { _rowid: number }>(rows: T[]): T[] {
  for (let i = 1; i < rows.length; i++) if (rows[i]!._rowid < rows[i - 1]!._rowid) return rows.sort((a, b) => a._rowid - b._rowid);
  return rows;
}
