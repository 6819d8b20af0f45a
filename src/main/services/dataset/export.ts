// Export: streams selected samples to train/validation files in one of six formats, with a Hugging Face
// dataset card and a LLaMA-Factory dataset_info.json entry, and records a dataset_exports row.
// Reads in keyset pages and writes through streams with backpressure, so memory stays flat.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Papa from 'papaparse';
import { ulid } from 'ulid';
import { EXPORT_FORMATS, SAMPLE_TYPES, type ExportFormat, type SampleType } from '../../../shared/domain';
import { AppError } from '../../../shared/errors';
import { STATE_DIR } from '../../db/connection';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { CSV_FIELDS, alpacaRecord, csvRow, openaiDpoRecord, openaiRecord, rawRecord, sharegptRecord } from './formats';
import { loadPiiDetector, redactContent, scanContent, type Detect } from './privacy';
import { SAMPLE_COLUMNS, sampleFromRow, type DatasetSample, type SampleContent, type SampleRow } from './types';
import { writeDatasetCard, writeDatasetInfo } from './card';
import { withoutMmap } from '../../db/bulk';

export interface ExportOptions {
  format: ExportFormat;
  /** Folder to write into (created). Default: <workspace>/.openclaw-reflection/exports/dataset-<format>-<time>. */
  outDir?: string;
  /** Share of samples (grouped by session) in train; default 0.8. */
  trainSplit?: number;
  /** Seed of the split; the same seed and data give the same split. */
  seed?: string | number;
  onlyApproved?: boolean;
  minQuality?: number;
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
}

export interface ExportedFile {
  name: string;
  path: string;
  bytes: number;
  sha256: string;
  records?: number;
}

export interface ExportResult {
  exportId: string;
  outDir: string;
  format: ExportFormat;
  files: ExportedFile[];
  total: number;
  train: number;
  validation: number;
  approved: number;
  avgQuality: number | null;
  includePii: boolean;
  /** OpenAI formats: examples over 16,385 tokens (gpt-3.5-turbo's context), which fine-tuning truncates. */
  tokenWarnings: { count: number; sampleIds: string[] };
  checksum: string;
}

export interface PreviewRecord {
  split: 'train' | 'validation';
  sampleId: string;
  /** The record object (CSV: the row as field -> value). */
  record: unknown;
  /** The exact text written for it (CSV: the row without header). */
  text: string;
}

export const TOKEN_LIMIT = 16_385;
const FORMULA = /^[=+\-@]/;
const fileExt = (f: ExportFormat) => (f === 'csv' ? 'csv' : 'jsonl');

interface Resolved {
  format: ExportFormat;
  trainSplit: number;
  seed: string;
  onlyApproved: boolean;
  minQuality: number | null;
  includePii: boolean;
  bom: boolean;
  sampleTypes: SampleType[];
  since: number | null;
  until: number | null;
  pageSize: number;
}

function resolve(o: ExportOptions): Resolved {
  if (!o || !EXPORT_FORMATS.includes(o.format)) throw new AppError('Invalid', `export: format must be one of ${EXPORT_FORMATS.join(', ')}`);
  const trainSplit = o.trainSplit ?? 0.8;
  if (!(trainSplit >= 0 && trainSplit <= 1)) throw new AppError('Invalid', 'export: trainSplit must be between 0 and 1');
  if (o.minQuality !== undefined && !(o.minQuality >= 0 && o.minQuality <= 1)) throw new AppError('Invalid', 'export: minQuality must be between 0 and 1');
  for (const [k, v] of [['since', o.since], ['until', o.until]] as const) {
    if (v !== undefined && !(Number.isInteger(v) && v >= 0)) throw new AppError('Invalid', `export: ${k} must be a time in ms since the epoch`);
  }
  if (o.since !== undefined && o.until !== undefined && o.since >= o.until) throw new AppError('Invalid', 'export: since must be before until');
  const types = o.sampleTypes?.length ? o.sampleTypes : [...SAMPLE_TYPES];
  for (const t of types) if (!SAMPLE_TYPES.includes(t)) throw new AppError('Invalid', `export: unknown sample type ${t}`);
  return {
    format: o.format,
    trainSplit,
    seed: String(o.seed ?? 'reflection'),
    onlyApproved: Boolean(o.onlyApproved),
    minQuality: o.minQuality ?? null,
    includePii: Boolean(o.includePii),
    bom: Boolean(o.bom),
    sampleTypes: o.format === 'openai-dpo' ? ['memory_gate_negative'] : types,
    since: o.since ?? null,
    until: o.until ?? null,
    pageSize: o.pageSize ?? 1000,
  };
}

/** The selection, for alias s or o; a cluster (near duplicates) is exported once, as its first selected member. */
function selection(r: Resolved): { where: string; params: Record<string, unknown> } {
  const filter = (a: string) => {
    const parts = [
      `${a}.session_id NOT IN (SELECT session_id FROM excluded_sessions)`,
      `${a}.sample_type IN (SELECT value FROM json_each(@types))`,
      r.onlyApproved ? `${a}.annotation_status IN ('approved', 'auto_approved')` : `${a}.annotation_status <> 'rejected'`,
    ];
    if (r.minQuality !== null) parts.push(`${a}.quality_score >= @minQuality`);
    if (r.since !== null) parts.push(`${a}.created_at >= @since`);
    if (r.until !== null) parts.push(`${a}.created_at < @until`);
    if (r.format === 'openai-dpo') parts.push(`${a}.correction_id IS NOT NULL`);
    return parts.join(' AND ');
  };
  const where = `${filter("s")} AND NOT EXISTS (SELECT 1 FROM dataset_samples o INDEXED BY idx_samples_cluster
      WHERE o.cluster_id = s.cluster_id AND o.rowid < s.rowid AND ${filter('o')})`;
  const params: Record<string, unknown> = { types: JSON.stringify(r.sampleTypes) };
  if (r.minQuality !== null) params.minQuality = r.minQuality;
  if (r.since !== null) params.since = r.since;
  if (r.until !== null) params.until = r.until;
  return { where, params };
}

/** How many samples an export with these options would write, and how many of them contain PII. */
export function exportSelectionCounts(ctx: ServiceContext, opts: ExportOptions): { total: number; withPii: number } {
  const { where, params } = selection(resolve(opts));
  return ctx.db
    .prepare(`SELECT count(*) AS total, coalesce(sum(s.contains_pii), 0) AS withPii FROM dataset_samples s WHERE ${where}`)
    .get(params) as { total: number; withPii: number };
}

/**
 * Preference pairs come only from corrected samples, a few percent of the table: find them through the
 * correction index instead of walking every row (and its large content) of the table.
 */
const BY_CORRECTION = 'INDEXED BY idx_samples_correction';

/** Sessions in seeded-hash order fill train up to the split share of samples; the rest is validation. */
function splitSessions(ctx: ServiceContext, r: Resolved, sel: ReturnType<typeof selection>): { train: Set<string>; total: number } {
  const rows = ctx.db
    .prepare(`SELECT s.session_id AS id, count(*) AS n FROM dataset_samples s ${r.format === 'openai-dpo' ? BY_CORRECTION : ''} WHERE ${sel.where} GROUP BY s.session_id`)
    .all(sel.params) as { id: string; n: number }[];
  const total = rows.reduce((a, x) => a + x.n, 0);
  const keyed = rows.map((x) => ({ ...x, key: createHash('sha256').update(`${r.seed}\u0000${x.id}`).digest('hex') }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const train = new Set<string>();
  const target = r.trainSplit * total;
  let acc = 0;
  for (const x of keyed) {
    if (acc >= target) break;
    train.add(x.id);
    acc += x.n;
  }
  return { train, total };
}

function exportContent(s: DatasetSample, r: Resolved, detect: Detect | null): SampleContent {
  if (r.includePii) return s.content;
  if (!s.privacyChecked && detect) {
    // never checked (collected without a detector): check now rather than export raw text
    const spans = scanContent(s.content, detect, {});
    return spans.length ? (redactContent(s.content, spans).redacted as SampleContent) : s.content;
  }
  return s.piiRedactedContent ?? s.content;
}

/**
 * Session keys can carry personal data (a WhatsApp target is a phone number): without includePii a
 * key in which the detector finds anything is exported as a stable pseudonym.
 */
function sessionLabel(s: DatasetSample, r: Resolved, detect: Detect | null, cache: Map<string, string>): string {
  if (r.includePii || !detect) return s.sessionId;
  let label = cache.get(s.sessionId);
  if (label === undefined) {
    label = detect(s.sessionId.replace(/[:/]/g, ' '), {}).length ? `session-${createHash('sha256').update(s.sessionId).digest('hex').slice(0, 16)}` : s.sessionId;
    cache.set(s.sessionId, label);
  }
  return label;
}

function buildRecord(r: Resolved, s: DatasetSample, content: SampleContent, sessionId: string): unknown {
  switch (r.format) {
    case 'alpaca':
      return alpacaRecord(content);
    case 'sharegpt':
      return sharegptRecord(content);
    case 'openai':
      return openaiRecord(content);
    case 'openai-dpo':
      return openaiDpoRecord(content);
    case 'raw':
      return rawRecord(s, content, sessionId);
    case 'csv':
      return csvRow(s, content, sessionId);
  }
}

function serialize(r: Resolved, records: unknown[]): string {
  if (!records.length) return '';
  if (r.format === 'csv') {
    return `${Papa.unparse(records as unknown[][], { header: false, newline: '\r\n', escapeFormulae: FORMULA })}\r\n`;
  }
  let out = '';
  for (const rec of records) out += `${JSON.stringify(rec)}\n`;
  return out;
}

interface PageItem {
  split: 'train' | 'validation';
  sample: DatasetSample;
  record: unknown;
  /** The record's JSON line when it was built from stored JSON text (raw), without the trailing newline. */
  line?: string;
}

const CONTENT_SENTINEL = '\u0000content\u0000';
const CONTENT_SENTINEL_JSON = JSON.stringify(CONTENT_SENTINEL);

/**
 * The content JSON exactly as the export would serialize it, straight from the row, when no scan is
 * needed: stored content is JSON.stringify output, so parsing and serializing it again gives the same text.
 */
function storedContentJson(row: SampleRow, r: Resolved): string | null {
  if (r.includePii) return row.content;
  if (row.privacy_checked !== 1) return null;
  return row.pii_redacted_content ?? row.content;
}

/** Yields the export's records page by page, in rowid order, already split. */
async function* exportPages(ctx: ServiceContext, r: Resolved, train: Set<string>, fast = false): AsyncGenerator<PageItem[]> {
  const sel = selection(r);
  const detect = r.includePii ? null : await loadPiiDetector();
  // NOT INDEXED: pages walk the table in rowid order; an index on sample_type would make SQLite
  // re-sort every remaining row for each page (quadratic at 100,000 samples).
  const page = ctx.db.prepare(
    `SELECT s.rowid AS _rowid, ${SAMPLE_COLUMNS.split(',').map((c) => `s.${c.trim()}`).join(', ')}
     FROM dataset_samples s ${r.format === 'openai-dpo' ? BY_CORRECTION : 'NOT INDEXED'} WHERE s.rowid > @after AND ${sel.where} ORDER BY s.rowid LIMIT @limit`,
  );
  const labels = new Map<string, string>();
  let after = 0;
  for (;;) {
    const rows = page.all({ ...sel.params, after, limit: r.pageSize }) as (SampleRow & { _rowid: number })[];
    if (!rows.length) return;
    after = rows[rows.length - 1]._rowid;
    const items: PageItem[] = [];
    for (const row of rows) {
      const split = train.has(row.session_id) ? 'train' : 'validation';
      const stored = fast ? storedContentJson(row, r) : null;
      if (stored !== null && r.format === 'raw') {
        // raw records embed the whole content: splice the stored JSON in rather than parse and re-serialize it
        const sample = sampleFromRow({ ...row, content: 'null', pii_redacted_content: null });
        const record = rawRecord(sample, CONTENT_SENTINEL as unknown as SampleContent, sessionLabel(sample, r, detect, labels));
        const line = JSON.stringify(record).replace(CONTENT_SENTINEL_JSON, () => stored);
        items.push({ split, sample, record, line });
        continue;
      }
      const sample = sampleFromRow(row);
      const content = exportContent(sample, r, detect);
      const label = sessionLabel(sample, r, detect, labels);
      const record = stored !== null && r.format === 'csv' ? csvRow(sample, content, label, stored) : buildRecord(r, sample, content, label);
      if (record === null) continue;
      items.push({ split, sample, record });
    }
    yield items;
  }
}

/** The first n records exactly as exportDataset would write them (same options, same split). */
export async function previewExport(ctx: ServiceContext, opts: ExportOptions, n = 5): Promise<PreviewRecord[]> {
  const r = resolve(opts);
  const out: PreviewRecord[] = [];
  const { train } = splitSessions(ctx, r, selection(r));
  for await (const items of exportPages(ctx, { ...r, pageSize: Math.min(r.pageSize, Math.max(n, 1)) }, train)) {
    for (const it of items) {
      if (out.length >= n) return out;
      const text = serialize(r, [it.record]);
      const record = r.format === 'csv' ? Object.fromEntries(CSV_FIELDS.map((f, i) => [f, (it.record as unknown[])[i]])) : it.record;
      out.push({ split: it.split, sampleId: it.sample.id, record, text });
    }
    if (out.length >= n) return out;
  }
  return out;
}

class FileSink {
  private readonly stream: fs.WriteStream;
  private readonly hash = createHash('sha256');
  private error: Error | null = null;
  bytes = 0;
  records = 0;
  constructor(readonly finalPath: string) {
    this.stream = fs.createWriteStream(`${finalPath}.partial`);
    this.stream.on('error', (e) => {
      this.error = e;
    });
  }
  async write(text: string): Promise<void> {
    if (this.error) throw this.error;
    if (!text) return;
    const buf = Buffer.from(text, 'utf8');
    this.hash.update(buf);
    this.bytes += buf.length;
    if (!this.stream.write(buf)) {
      await new Promise<void>((resolve, reject) => {
        const done = (e?: Error) => {
          this.stream.off('drain', done);
          this.stream.off('error', done);
          if (e) reject(e);
          else resolve();
        };
        this.stream.on('drain', done);
        this.stream.on('error', done);
      });
    }
  }
  async close(): Promise<ExportedFile> {
    await new Promise<void>((resolve, reject) => this.stream.end((e?: Error | null) => (e || this.error ? reject(e ?? this.error) : resolve())));
    fs.renameSync(`${this.finalPath}.partial`, this.finalPath);
    return { name: path.basename(this.finalPath), path: this.finalPath, bytes: this.bytes, sha256: this.hash.digest('hex'), records: this.records };
  }
  abort(): void {
    this.stream.destroy();
    fs.rmSync(`${this.finalPath}.partial`, { force: true });
  }
}

export function fileSha256(file: string): { bytes: number; sha256: string } {
  const buf = fs.readFileSync(file);
  return { bytes: buf.length, sha256: createHash('sha256').update(buf).digest('hex') };
}

/** Writes the dataset folder and records the export. Progress via ctx.progress, cancel via ctx.signal. */
export function exportDataset(ctx: ServiceContext, opts: ExportOptions): Promise<ExportResult> {
  return withoutMmap(ctx.db, () => writeExport(ctx, opts));
}

async function writeExport(ctx: ServiceContext, opts: ExportOptions): Promise<ExportResult> {
  const r = resolve(opts);
  const now = nowOf(ctx);
  const outDir = path.resolve(
    opts.outDir ?? path.join(ctx.workspaceDir, STATE_DIR, 'exports', `dataset-${r.format}-${new Date(now).toISOString().replace(/[:.]/g, '-')}`),
  );
  try {
    fs.mkdirSync(outDir, { recursive: true });
  } catch (e) {
    throw new AppError('Io', `export: cannot create ${outDir}: ${(e as Error).message}`);
  }
  const ext = fileExt(r.format);
  const sinks = { train: new FileSink(path.join(outDir, `train.${ext}`)), validation: new FileSink(path.join(outDir, `validation.${ext}`)) };
  const tokenWarnings = { count: 0, sampleIds: [] as string[] };
  const encoder = r.format === 'openai' || r.format === 'openai-dpo' ? await import('gpt-tokenizer/encoding/cl100k_base') : null;
  let approved = 0;
  let qualitySum = 0;
  let qualityCount = 0;
  let done = 0;
  const { train, total } = splitSessions(ctx, r, selection(r));
  ctx.progress?.(0, total, 'export');
  try {
    if (r.format === 'csv') {
      const header = `${r.bom ? '\ufeff' : ''}${Papa.unparse([CSV_FIELDS as unknown as string[]], { newline: '\r\n' })}\r\n`;
      await sinks.train.write(header);
      await sinks.validation.write(header);
    }
    for await (const items of exportPages(ctx, r, train, true)) {
      if (ctx.signal?.aborted) throw new AppError('Conflict', 'export cancelled');
      const bySplit: Record<'train' | 'validation', unknown[]> = { train: [], validation: [] };
      // JSON Lines: each record is stringified once, for the token check and the file alike
      const linesBySplit: Record<'train' | 'validation', string> = { train: '', validation: '' };
      for (const it of items) {
        const line = r.format === 'csv' ? null : (it.line ?? JSON.stringify(it.record));
        if (line === null) bySplit[it.split].push(it.record);
        else linesBySplit[it.split] += `${line}\n`;
        sinks[it.split].records++;
        if (it.sample.annotationStatus === 'approved' || it.sample.annotationStatus === 'auto_approved') approved++;
        if (it.sample.qualityScore !== null) {
          qualitySum += it.sample.qualityScore;
          qualityCount++;
        }
        if (encoder) {
          const text = line ?? JSON.stringify(it.record);
          // tokens never outnumber UTF-8 bytes, so short examples skip the tokenizer
          if (text.length * 3 > TOKEN_LIMIT && Buffer.byteLength(text) > TOKEN_LIMIT && encoder.isWithinTokenLimit(text, TOKEN_LIMIT) === false) {
            tokenWarnings.count++;
            if (tokenWarnings.sampleIds.length < 20) tokenWarnings.sampleIds.push(it.sample.id);
          }
        }
      }
      await sinks.train.write(r.format === 'csv' ? serialize(r, bySplit.train) : linesBySplit.train);
      await sinks.validation.write(r.format === 'csv' ? serialize(r, bySplit.validation) : linesBySplit.validation);
      done += items.length;
      ctx.progress?.(done, total, 'export');
    }
  } catch (e) {
    sinks.train.abort();
    sinks.validation.abort();
    if (e instanceof AppError) throw e;
    throw new AppError('Io', `export: writing ${outDir} failed: ${(e as Error).message}`);
  }
  const trainFile = await sinks.train.close();
  const validationFile = await sinks.validation.close();
  const dataFiles = [trainFile, validationFile];
  const count = trainFile.records! + validationFile.records!;
  const avgQuality = qualityCount ? Math.round((qualitySum / qualityCount) * 1000) / 1000 : null;
  const extra: ExportedFile[] = [];
  const infoFile = writeDatasetInfo(outDir, r.format, dataFiles);
  if (infoFile) extra.push({ name: path.basename(infoFile), path: infoFile, ...fileSha256(infoFile) });
  const cardFile = writeDatasetCard(outDir, {
    format: r.format,
    files: dataFiles,
    total: count,
    avgQuality,
    includePii: r.includePii,
    sampleTypes: r.sampleTypes,
    trainSplit: r.trainSplit,
    seed: r.seed,
    exportedAt: now,
  });
  extra.push({ name: 'README.md', path: cardFile, ...fileSha256(cardFile) });
  const files = [...dataFiles, ...extra];
  // one checksum for the export: SHA-256 over the sha256sum-style manifest of its data files
  const checksum = createHash('sha256')
    .update(dataFiles.map((f) => `${f.sha256}  ${f.name}\n`).join(''))
    .digest('hex');
  const exportId = ulid(now);
  ctx.db
    .prepare(
      `INSERT INTO dataset_exports (id, export_name, export_format, sample_types, filters, total_samples, approved_samples,
        rejected_samples, train_samples, validation_samples, avg_quality_score, include_pii, file_path, file_size_bytes,
        checksum, files, exported_by, exported_at)
       VALUES (@id, @name, @format, @types, @filters, @total, @approved, 0, @train, @validation, @avg, @pii, @path, @size,
        @checksum, @files, @by, @at)`,
    )
    .run({
      id: exportId,
      name: path.basename(outDir),
      format: r.format,
      types: JSON.stringify(r.sampleTypes),
      filters: JSON.stringify({ onlyApproved: r.onlyApproved, minQuality: r.minQuality, since: r.since, until: r.until, trainSplit: r.trainSplit, seed: r.seed, bom: r.bom }),
      total: count,
      approved,
      train: trainFile.records,
      validation: validationFile.records,
      avg: avgQuality,
      pii: r.includePii ? 1 : 0,
      path: outDir,
      size: files.reduce((a, f) => a + f.bytes, 0),
      checksum,
      files: JSON.stringify(files.map((f) => ({ name: f.name, bytes: f.bytes, sha256: f.sha256, records: f.records ?? null }))),
      by: actorOf(ctx),
      at: now,
    });
  return {
    exportId,
    outDir,
    format: r.format,
    files,
    total: count,
    train: trainFile.records!,
    validation: validationFile.records!,
    approved,
    avgQuality,
    includePii: r.includePii,
    tokenWarnings,
    checksum,
  };
}
