// Export: streams the planned samples (exportPlan.ts) to per-format train/validation files, with a
// Hugging Face dataset card, a LLaMA-Factory dataset_info.json entry and a dataset_exports row that
// holds the summary (what was included, label balance, folded duplicates, tokens, languages).
// Reads in keyset pages and writes through streams with backpressure, so memory stays flat.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Papa from 'papaparse';
import { ulid } from 'ulid';
import type { ExportFormat, SampleType } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { STATE_DIR } from '../db/connection';
import { withoutMmap } from '../db/bulk';
import { fileSha256 } from '../files/checksum';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { CSV_FIELDS } from './formats';
import { loadPiiDetector, redactContent, scanContent, type Detect } from './privacy';
import { loadValueRules, rowWithValueRules } from '../curation/piiValues';
import { SAMPLE_COLUMNS, sampleFromRow, type DatasetSample, type SampleContent, type SampleRow } from './types';
import { writeDatasetCard, writeDatasetInfo, writeLicenseFile } from './card';
import { SessionValues, hideSessionValues } from './sessionPrivacy';
import { clustersAreStale, reclusterSamples } from './dedupe';
import { emptyExportMessage, planExport, resolveExport, selectionWhere, targetModelOf, type ExportOptions, type ExportPlan, type Resolved } from './exportPlan';
import { ParquetSink, type ParquetRow } from '../parquet/writer';
import { EXPORTER_VERSION, TRAINING_COLUMNS } from '../parquet/trainingRows';
import { ExportTally, fitCells, recordText, recordsOf, type LabelBalance, type TokenReport } from './exportRecords';

export type { ExportOptions } from './exportPlan';

export interface ExportedFile {
  name: string;
  path: string;
  bytes: number;
  sha256: string;
  records?: number;
  /** A name that says what the file is when it leaves the folder: <workspace>-<format>-<date>.<split>.<ext>. */
  downloadName?: string;
}

export interface ExportSummary {
  /** Which review statuses and quality floor the export took. */
  included: { statuses: string[]; minQuality: number | null; sampleTypes: SampleType[]; balanced: boolean };
  balance: LabelBalance;
  /** Approved samples folded into a near-duplicate cluster's representative, and which one kept. */
  folded: { approved: number; total: number; samples: { sampleId: string; keptSampleId: string }[] };
  /** Records dropped because an identical record (after redaction) was already written. */
  identicalDropped: { count: number; sampleIds: string[] };
  balancedOut: number;
  tokens: TokenReport | null;
  languages: string[];
  split: { by: 'session' | 'turn'; requested: number; achieved: number | null; validationWritten: boolean };
  csvCellsTruncated: number;
  notes: string[];
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
  /** Examples over the target model's token limit (see summary.tokens). */
  tokenWarnings: { count: number; sampleIds: string[] };
  checksum: string;
  summary: ExportSummary;
}

export interface PreviewRecord {
  split: 'train' | 'validation';
  sampleId: string;
  /** The record object (CSV: the row as field -> value). */
  record: unknown;
  /** The exact text written for it (CSV: the row without header). */
  text: string;
}

/** The data file name of a format and split: alpaca.train.jsonl, so formats can share a folder. */
const EXTENSIONS: Partial<Record<ExportFormat, string>> = { csv: 'csv', parquet: 'parquet' };
export const dataFileName = (format: ExportFormat, split: 'train' | 'validation') => `${format}.${split}.${EXTENSIONS[format] ?? 'jsonl'}`;

/** How many samples an export with these options would write, and how many of them contain PII. */
export function exportSelectionCounts(ctx: ServiceContext, opts: ExportOptions): { total: number; withPii: number } {
  const r = resolveExport(opts);
  const plan = planExport(ctx, r);
  const { where, params } = selectionWhere(r);
  const ids = JSON.stringify([...plan.split.keys()]);
  const withPii = ctx.db
    .prepare(`SELECT coalesce(sum(s.contains_pii), 0) FROM dataset_samples s WHERE ${where} AND s.id IN (SELECT value FROM json_each(@ids))`)
    .pluck()
    .get({ ...params, ids }) as number;
  return { total: plan.split.size, withPii };
}

/** The content an export writes: redacted unless includePii, scanned now if it never was. */
export function exportContent(s: DatasetSample, r: Pick<Resolved, 'includePii'>, detect: Detect | null): SampleContent {
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

export interface PageItem {
  split: 'train' | 'validation';
  sample: DatasetSample;
  content: SampleContent;
  records: unknown[];
}

/** Yields the planned samples page by page, in rowid order, with their records. */
export async function* exportPages(ctx: ServiceContext, r: Resolved, plan: ExportPlan): AsyncGenerator<PageItem[]> {
  const sel = selectionWhere(r);
  const detect = r.includePii ? null : await loadPiiDetector();
  // NOT INDEXED: pages walk the table in rowid order; an index would make SQLite re-sort every
  // remaining row for each page (quadratic at 100,000 samples).
  const page = ctx.db.prepare(
    `SELECT s.rowid AS _rowid, ${SAMPLE_COLUMNS.split(',').map((c) => `s.${c.trim()}`).join(', ')}
     FROM dataset_samples s NOT INDEXED WHERE s.rowid > @after AND ${sel.where} ORDER BY s.rowid LIMIT @limit`,
  );
  const labels = new Map<string, string>();
  // Per-value PII decisions (curation/piiValues) also cover samples collected after they were made.
  const valueRules = r.includePii ? [] : loadValueRules(ctx);
  const sessionValues = new SessionValues(ctx.db, valueRules);
  let after = 0;
  for (;;) {
    const rows = page.all({ ...sel.params, after, limit: r.pageSize }) as (SampleRow & { _rowid: number })[];
    if (!rows.length) return;
    after = rows[rows.length - 1]._rowid;
    const items: PageItem[] = [];
    for (const storedRow of rows) {
      const row = rowWithValueRules(storedRow, valueRules);
      const split = plan.split.get(row.id);
      if (!split) continue;
      const sample = sampleFromRow(row);
      const content = r.includePii ? sample.content : hideSessionValues(exportContent(sample, r, detect), sessionValues.of(sample.sessionId));
      const label = sessionLabel(sample, r, detect, labels);
      const records = recordsOf(r.format, sample, content, label);
      if (records.length) items.push({ split, sample, content, records });
    }
    yield items;
  }
}

/** The first n records exactly as exportDataset would write them (same options, same split). */
export async function previewExport(ctx: ServiceContext, opts: ExportOptions, n = 5): Promise<PreviewRecord[]> {
  const r = resolveExport(opts);
  const out: PreviewRecord[] = [];
  const plan = planExport(ctx, r);
  const seen = new Set<string>();
  for await (const items of exportPages(ctx, { ...r, pageSize: Math.min(r.pageSize, Math.max(n * 4, 20)) }, plan)) {
    for (const it of items) {
      for (const rec of it.records) {
        if (out.length >= n) return out;
        const fitted = r.format === 'csv' ? fitCells(rec as (string | number | null)[]).row : rec;
        const record = r.format === 'csv' ? Object.fromEntries(CSV_FIELDS.map((f, i) => [f, (fitted as unknown[])[i]])) : fitted;
        const line = recordText(r.format, fitted);
        // the same identical-record rule as the export, so every previewed record is one it writes
        if (r.format !== 'raw' && r.format !== 'csv') {
          if (seen.has(line)) continue;
          seen.add(line);
        }
        out.push({ split: it.split, sampleId: it.sample.id, record, text: `${recordText(r.format, fitted)}${r.format === 'csv' ? '\r\n' : '\n'}` });
      }
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

export { fileSha256 };


/** Writes the dataset folder and records the export. Progress via ctx.progress, cancel via ctx.signal. */
export function exportDataset(ctx: ServiceContext, opts: ExportOptions): Promise<ExportResult> {
  return withoutMmap(ctx.db, () => writeExport(ctx, opts));
}

async function tokenCounter(r: Resolved): Promise<((text: string) => number) | null> {
  const { encoding } = targetModelOf(r);
  const mod = encoding === 'o200k_base' ? await import('gpt-tokenizer/encoding/o200k_base') : await import('gpt-tokenizer/encoding/cl100k_base');
  return (text: string) => mod.countTokens(text);
}

async function writeExport(ctx: ServiceContext, opts: ExportOptions): Promise<ExportResult> {
  const r = resolveExport(opts);
  const now = nowOf(ctx);
  // clusters of the old whole-sample scheme merged different facts: rebuild them before folding by them
  if (clustersAreStale(ctx.db)) reclusterSamples(ctx.db, r.cfg.dedupe);
  const plan = planExport(ctx, r);
  if (!plan.split.size) throw new AppError('Invalid', emptyExportMessage(ctx, r));
  const outDir = path.resolve(
    opts.outDir ?? path.join(ctx.workspaceDir, STATE_DIR, 'exports', `dataset-${r.format}-${new Date(now).toISOString().replace(/[:.]/g, '-')}`),
  );
  try {
    fs.mkdirSync(outDir, { recursive: true });
  } catch (e) {
    throw new AppError('Io', `export: cannot create ${outDir}: ${(e as Error).message}`);
  }
  const target = targetModelOf(r);
  const tally = new ExportTally(r.format, { model: target.model, encoding: target.encoding, limit: target.limit }, await tokenCounter(r));
  const sinkFor = (split: 'train' | 'validation') => {
    const file = path.join(outDir, dataFileName(r.format, split));
    return r.format === 'parquet' ? new ParquetSink(file, TRAINING_COLUMNS, { exporter: EXPORTER_VERSION }) : new FileSink(file);
  };
  const sinks = { train: sinkFor('train'), validation: sinkFor('validation') };
  const header = r.format === 'csv' ? `${r.bom ? '\ufeff' : ''}${Papa.unparse([CSV_FIELDS as unknown as string[]], { newline: '\r\n' })}\r\n` : '';
  const written = { train: 0, validation: 0 };
  let approved = 0;
  let qualitySum = 0;
  let qualityCount = 0;
  let done = 0;
  ctx.progress?.(0, plan.split.size, 'export');
  try {
    for await (const items of exportPages(ctx, r, plan)) {
      if (ctx.signal?.aborted) throw new AppError('Cancelled', 'export cancelled');
      const text = { train: '', validation: '' };
      const rows: Record<'train' | 'validation', ParquetRow[]> = { train: [], validation: [] };
      for (const it of items) {
        const kept: unknown[] = [];
        for (const rec of it.records) {
          const fitted = r.format === 'csv' ? fitCells(rec as (string | number | null)[]) : null;
          if (fitted) tally.cutCells += fitted.cut;
          const line = recordText(r.format, fitted ? fitted.row : rec);
          // raw and csv rows carry ids and are never identical; a training record is compared byte for byte
          if (r.format !== 'raw' && r.format !== 'csv' && !tally.firstTime(line, it.sample.id)) continue;
          if (!written[it.split] && header) text[it.split] += header;
          if (r.format === 'parquet') rows[it.split].push({ ...(rec as ParquetRow), split: it.split });
          else text[it.split] += `${line}${r.format === 'csv' ? '\r\n' : '\n'}`;
          written[it.split]++;
          sinks[it.split].records++;
          kept.push(rec);
        }
        if (!kept.length) continue;
        tally.add(it.sample, it.content, kept);
        if (it.sample.annotationStatus === 'approved' || it.sample.annotationStatus === 'auto_approved') approved++;
        if (it.sample.qualityScore !== null) {
          qualitySum += it.sample.qualityScore;
          qualityCount++;
        }
      }
      for (const split of ['train', 'validation'] as const) {
        if (sinks[split] instanceof ParquetSink) (sinks[split] as ParquetSink).writeRows(rows[split]);
        else await sinks[split].write(text[split]);
      }
      done += items.length;
      ctx.progress?.(done, plan.split.size, 'export');
    }
  } catch (e) {
    sinks.train.abort();
    sinks.validation.abort();
    if (e instanceof AppError) throw e;
    throw new AppError('Io', `export: writing ${outDir} failed: ${(e as Error).message}`);
  }
  return finishExport(ctx, r, plan, { outDir, now, sinks, tally, approved, avgQuality: qualityCount ? Math.round((qualitySum / qualityCount) * 1000) / 1000 : null });
}

interface Finished {
  outDir: string;
  now: number;
  sinks: { train: FileSink | ParquetSink; validation: FileSink | ParquetSink };
  tally: ExportTally;
  approved: number;
  avgQuality: number | null;
}

/** Closes the files (an empty split leaves no file), writes the card and dataset_info, records the export. */
async function finishExport(ctx: ServiceContext, r: Resolved, plan: ExportPlan, f: Finished): Promise<ExportResult> {
  const { outDir, now, sinks, tally } = f;
  const stamp = new Date(now).toISOString().slice(0, 10);
  const workspaceName = path.basename(path.resolve(ctx.workspaceDir)).replace(/[^\w.-]+/g, '_') || 'workspace';
  const dataFiles: ExportedFile[] = [];
  for (const split of ['train', 'validation'] as const) {
    const sink = sinks[split];
    const stale = path.join(outDir, dataFileName(r.format, split));
    if (!sink.records) {
      sink.abort();
      // a file of this format and split from an earlier export here would now be described by nothing
      fs.rmSync(stale, { force: true });
      continue;
    }
    const file = await sink.close();
    dataFiles.push({ ...file, downloadName: `${workspaceName}-${r.format}-${stamp}.${file.name.slice(r.format.length + 1)}` });
  }
  if (!dataFiles.length) throw new AppError('Invalid', emptyExportMessage(ctx, r));
  const count = dataFiles.reduce((n, x) => n + (x.records ?? 0), 0);
  const notes = [...plan.notes];
  if (tally.duplicatesDropped) notes.push(`${tally.duplicatesDropped} records identical to an earlier record (after redaction) were left out`);
  if (tally.cutCells) notes.push(`${tally.cutCells} CSV cells were longer than Excel's 32,767 characters and were truncated with a marker`);
  const summary: ExportSummary = {
    included: {
      statuses: r.includeUnreviewed ? ['approved', 'auto_approved', 'pending', 'needs_review'] : ['approved', 'auto_approved'],
      minQuality: r.minQuality,
      sampleTypes: r.sampleTypes,
      balanced: r.balance,
    },
    balance: tally.balance,
    folded: { approved: plan.foldedApproved.length, total: plan.foldedTotal, samples: plan.foldedApproved.slice(0, 200) },
    identicalDropped: { count: tally.duplicatesDropped, sampleIds: tally.duplicateSampleIds },
    balancedOut: plan.balancedOut,
    tokens: r.format === 'raw' || r.format === 'csv' ? null : tally.tokens,
    languages: tally.languageList(),
    split: { by: r.splitBy, requested: r.trainSplit, achieved: plan.achievedTrainShare, validationWritten: dataFiles.some((x) => x.name.includes('.validation.')) },
    csvCellsTruncated: tally.cutCells,
    notes,
  };
  const extra: ExportedFile[] = [];
  const infoFile = writeDatasetInfo(outDir, r.format, dataFiles);
  if (infoFile) extra.push({ name: path.basename(infoFile), path: infoFile, ...fileSha256(infoFile) });
  const license = writeLicenseFile(outDir, r.cfg.export);
  if (license) extra.push({ name: path.basename(license), path: license, ...fileSha256(license) });
  const cardFile = writeDatasetCard(outDir, {
    format: r.format, files: dataFiles, total: count, avgQuality: f.avgQuality, includePii: r.includePii, seed: r.seed,
    exportedAt: now, license: r.cfg.export, summary,
  });
  extra.push({ name: 'README.md', path: cardFile, ...fileSha256(cardFile) });
  const files = [...dataFiles, ...extra];
  // one checksum for the export: SHA-256 over the sha256sum-style manifest of its data files
  const checksum = createHash('sha256').update(dataFiles.map((x) => `${x.sha256}  ${x.name}\n`).join('')).digest('hex');
  const exportId = ulid(now);
  const train = dataFiles.find((x) => x.name.includes('.train.'))?.records ?? 0;
  const validation = dataFiles.find((x) => x.name.includes('.validation.'))?.records ?? 0;
  recordExport(ctx, { exportId, outDir, r, files, dataFiles, count, train, validation, approved: f.approved, avgQuality: f.avgQuality, checksum, summary, now });
  return {
    exportId, outDir, format: r.format, files, total: count, train, validation, approved: f.approved, avgQuality: f.avgQuality,
    includePii: r.includePii, tokenWarnings: { count: tally.tokens.overLimit, sampleIds: tally.tokens.sampleIds }, checksum, summary,
  };
}

interface ExportRecordInput {
  exportId: string; outDir: string; r: Resolved; files: ExportedFile[]; dataFiles: ExportedFile[]; count: number; train: number;
  validation: number; approved: number; avgQuality: number | null; checksum: string; summary: ExportSummary; now: number;
}

function recordExport(ctx: ServiceContext, x: ExportRecordInput): void {
  const r = x.r;
  ctx.db
    .prepare(
      `INSERT INTO dataset_exports (id, export_name, export_format, sample_types, filters, total_samples, approved_samples,
        rejected_samples, train_samples, validation_samples, avg_quality_score, include_pii, file_path, file_size_bytes,
        checksum, files, exported_by, exported_at, summary)
       VALUES (@id, @name, @format, @types, @filters, @total, @approved, 0, @train, @validation, @avg, @pii, @path, @size,
        @checksum, @files, @by, @at, @summary)`,
    )
    .run({
      id: x.exportId,
      name: path.basename(x.outDir),
      format: r.format,
      types: JSON.stringify(r.sampleTypes),
      filters: JSON.stringify({
        includeUnreviewed: r.includeUnreviewed, minQuality: r.minQuality, balance: r.balance, since: r.since, until: r.until,
        trainSplit: r.trainSplit, splitBy: r.splitBy, seed: r.seed, bom: r.bom, targetModel: r.targetModel,
      }),
      total: x.count,
      approved: x.approved,
      train: x.train,
      validation: x.validation,
      avg: x.avgQuality,
      pii: r.includePii ? 1 : 0,
      path: x.outDir,
      size: x.files.reduce((a, f) => a + f.bytes, 0),
      checksum: x.checksum,
      files: JSON.stringify(x.files.map((f) => ({ name: f.name, bytes: f.bytes, sha256: f.sha256, records: f.records ?? null, downloadName: f.downloadName ?? null }))),
      by: actorOf(ctx),
      at: x.now,
      summary: JSON.stringify(x.summary),
    });
}
