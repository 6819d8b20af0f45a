// Write: the export's records streamed to per-format train/validation files (hashed as they are written,
// with backpressure, so memory stays flat), then the Hugging Face dataset card, the LLaMA-Factory
// dataset_info.json entry and the dataset_exports row that holds the summary.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Papa from 'papaparse';
import { ulid } from 'ulid';
import type { DataSplit, ExportFormat } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { insertDatasetExport } from '../db/repositories/datasetExports';
import { fileSha256 } from '../files/checksum';
import { actorOf, type ServiceContext } from '../context';
import { ParquetSink, type ParquetRow } from '../parquet/writer';
import { EXPORTER_VERSION, TRAINING_COLUMNS } from '../parquet/trainingRows';
import { writeDatasetCard, writeDatasetInfo, writeLicenseFile } from './card';
import { HeapCeiling } from './heapCeiling';
import type { ExportSummary } from '../../shared/contract';
import type { ExportedFile, ExportResult } from './export';
import { emptyExportMessage, type ExportPlan, type Resolved } from './exportPlan';
import type { ExportReader, PageItem } from './exportPages';
import { ExportTally, fitCells, recordText } from './exportRecords';
import { CSV_FIELDS } from './formats';

const SPLITS: readonly DataSplit[] = ['train', 'validation'];

/** The data file name of a format and split: alpaca.train.jsonl, so formats can share a folder. */
const EXTENSIONS: Partial<Record<ExportFormat, string>> = { csv: 'csv', parquet: 'parquet' };
export const dataFileName = (format: ExportFormat, split: DataSplit) => `${format}.${split}.${EXTENSIONS[format] ?? 'jsonl'}`;

/** Bytes a text sink gathers before it hands them to the hash and the stream as one chunk. */
const CHUNK_BYTES = 1 << 20;
/**
 * Heap growth that triggers a full collection during an export (heapCeiling.ts). Each page's rows
 * live across the awaits that drain the sinks, so V8 promotes them and lets its old space fill with them:
 * a 1,000,000-decision csv export reached 164 MB of heap for 30-40 MB live, and 282 MB of peak RSS. With a
 * collection at 48 MB of growth: 211 MB, the CPU within the runs' spread (41-56 s); 32 MB gave no lower peak.
 */
const EXPORT_HEAP_HEADROOM = 48 * 1024 * 1024;
/** Written chunks a text sink keeps to fill again (the stream rarely holds more than one: drain()). */
const SPARE_CHUNKS = 2;

/**
 * A split's text file. Text is encoded straight into a chunk buffer as it comes (no page-sized string
 * to build and encode again), hashed and written a chunk at a time, with backpressure (drain()).
 */
class FileSink {
  private readonly stream: fs.WriteStream;
  private readonly hash = createHash('sha256');
  private error: Error | null = null;
  private chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  /**
   * Chunks the stream has written, to fill again: a new chunk each time left the written ones to the next
   * garbage collection, and a 1,000,000-decision raw export held 20-90 MB of them at any moment.
   */
  private readonly spare: Buffer<ArrayBuffer>[] = [];
  private used = 0;
  bytes = 0;
  records = 0;
  constructor(readonly finalPath: string) {
    this.stream = fs.createWriteStream(`${finalPath}.partial`);
    this.stream.on('error', (e) => {
      this.error = e;
    });
  }
  append(text: string): void {
    // a UTF-16 code unit takes at most 3 bytes of UTF-8
    if (this.used + text.length * 3 > this.chunk.length) {
      this.pushChunk();
      if (text.length * 3 > this.chunk.length) return this.push(Buffer.from(text, 'utf8'));
    }
    this.used += this.chunk.write(text, this.used);
  }
  /** A line: the text and its break (\r\n for csv, else \n), the break stored as bytes rather than encoded as a second text. */
  appendLine(text: string, crlf: boolean): void {
    const room = text.length * 3 + 2;
    if (this.used + room > this.chunk.length) {
      this.pushChunk();
      if (room > this.chunk.length) return this.push(Buffer.from(crlf ? `${text}\r\n` : `${text}\n`, 'utf8'));
    }
    this.used += this.chunk.write(text, this.used);
    if (crlf) this.chunk[this.used++] = 0x0d;
    this.chunk[this.used++] = 0x0a;
  }
  /** Waits while the stream holds more than it wants (the caller reads on meanwhile, memory stays flat). */
  async drain(): Promise<void> {
    if (this.error) throw this.error;
    if (!this.stream.writableNeedDrain) return;
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
  private pushChunk(): void {
    if (!this.used) return;
    const chunk = this.chunk;
    // the stream keeps the chunk until it is written: the next text goes into a spare one, and this one
    // is spare again once written
    this.chunk = this.spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
    const used = this.used;
    this.used = 0;
    this.push(chunk.subarray(0, used), () => {
      if (this.spare.length < SPARE_CHUNKS) this.spare.push(chunk);
    });
  }
  private push(buf: Buffer, written?: () => void): void {
    this.hash.update(buf);
    this.bytes += buf.length;
    this.stream.write(buf, written);
  }
  async close(): Promise<ExportedFile> {
    this.pushChunk();
    await new Promise<void>((resolve, reject) =>
      this.stream.end((e?: Error | null) => (e || this.error ? reject(e ?? this.error) : resolve())),
    );
    fs.renameSync(`${this.finalPath}.partial`, this.finalPath);
    return {
      name: path.basename(this.finalPath),
      path: this.finalPath,
      bytes: this.bytes,
      sha256: this.hash.digest('hex'),
      records: this.records,
    };
  }
  abort(): void {
    this.stream.destroy();
    fs.rmSync(`${this.finalPath}.partial`, { force: true });
  }
}

export type Sinks = Record<DataSplit, FileSink | ParquetSink>;

/** Creates the folder and opens a (partial) file per split. */
export function openSinks(outDir: string, format: ExportFormat): Sinks {
  try {
    fs.mkdirSync(outDir, { recursive: true });
  } catch (e) {
    throw new AppError('Io', `export: cannot create ${outDir}: ${(e as Error).message}`);
  }
  const sinkFor = (split: DataSplit) => {
    const file = path.join(outDir, dataFileName(format, split));
    return format === 'parquet' ? new ParquetSink(file, TRAINING_COLUMNS, { exporter: EXPORTER_VERSION }) : new FileSink(file);
  };
  return { train: sinkFor('train'), validation: sinkFor('validation') };
}

/** What the write loop counts besides the tally: approved samples and the quality average. */
export interface Written {
  approved: number;
  qualitySum: number;
  qualityCount: number;
}

/** Renders one item into its sink; records identical to an earlier one are dropped. */
function renderItem(r: Resolved, it: PageItem, to: { sinks: Sinks; tally: ExportTally; written: Written; header: string }): void {
  const { sinks, tally, written: w, header } = to;
  const sink = sinks[it.split];
  let kept: unknown[] | null = null;
  for (const rec of it.records) {
    const fitted = r.format === 'csv' ? fitCells(rec as (string | number | null)[]) : null;
    if (fitted) tally.cutCells += fitted.cut;
    const line = it.rendered ? (rec as string) : recordText(r.format, fitted ? fitted.row : rec);
    // raw and csv rows carry ids and are never identical; a training record is compared byte for byte
    if (r.format !== 'raw' && r.format !== 'csv' && !tally.firstTime(line, it.sample.id, r.format === 'parquet')) continue;
    if (sink instanceof FileSink) {
      if (!sink.records && header) sink.append(header);
      sink.appendLine(line, r.format === 'csv');
    } else {
      // the row is this item's own (recordsOf builds it): set its split in place, a spread copy takes V8's slow path
      (rec as ParquetRow).split = it.split;
      sink.append(rec as ParquetRow);
    }
    sink.records++;
    (kept ??= []).push(rec);
  }
  if (!kept) return;
  tally.add(it.sample, it.content, kept, it.task);
  if (it.sample.annotationStatus === 'approved' || it.sample.annotationStatus === 'auto_approved') w.approved++;
  if (it.sample.qualityScore !== null) {
    w.qualitySum += it.sample.qualityScore;
    w.qualityCount++;
  }
}

/** Streams every page into the sinks, each item rendered as soon as it is read; a failure removes the partial files. */
export async function writeRecords(
  ctx: ServiceContext,
  r: Resolved,
  reader: ExportReader,
  to: { outDir: string; total: number; sinks: Sinks; tally: ExportTally },
): Promise<Written> {
  const { total, sinks, tally } = to;
  const written: Written = { approved: 0, qualitySum: 0, qualityCount: 0 };
  const header =
    r.format === 'csv' ? `${r.bom ? '\ufeff' : ''}${Papa.unparse([CSV_FIELDS as unknown as string[]], { newline: '\r\n' })}\r\n` : '';
  let done = 0;
  const heap = new HeapCeiling(EXPORT_HEAP_HEADROOM);
  // The plan read every selected sample; its columns are garbage now, yet V8 would keep them beside the
  // writing's own until it chose to collect: at 1,000,000 decisions 40 MB of array buffers stayed through
  // a raw export. One full collection (a few ms at this live heap) before the first page.
  heap.collect();
  ctx.progress?.(0, total, 'samples');
  try {
    for await (const rows of reader.pages()) {
      heap.check();
      if (ctx.signal?.aborted) throw new AppError('Conflict', 'export cancelled');
      for (const row of rows) {
        const item = reader.item(row);
        if (!item) continue;
        renderItem(r, item, { sinks, tally, written, header });
        done++;
      }
      // the tokenizer is loaded only when an example could be over the limit
      if (tally.hasPending) await tally.countPending();
      for (const split of SPLITS) {
        const sink = sinks[split];
        if (sink instanceof FileSink) await sink.drain();
      }
      ctx.progress?.(done, total, 'samples');
    }
  } catch (e) {
    sinks.train.abort();
    sinks.validation.abort();
    if (e instanceof AppError) throw e;
    throw new AppError('Io', `export: writing ${to.outDir} failed: ${(e as Error).message}`);
  }
  return written;
}

/** Closes the files (an empty split leaves no file, and removes an older one of the same name). */
async function closeSinks(ctx: ServiceContext, r: Resolved, outDir: string, sinks: Sinks, now: number): Promise<ExportedFile[]> {
  const stamp = new Date(now).toISOString().slice(0, 10);
  const workspaceName = path.basename(path.resolve(ctx.workspaceDir)).replace(/[^\w.-]+/g, '_') || 'workspace';
  const dataFiles: ExportedFile[] = [];
  for (const split of SPLITS) {
    const sink = sinks[split];
    if (!sink.records) {
      sink.abort();
      // a file of this format and split from an earlier export here would now be described by nothing
      fs.rmSync(path.join(outDir, dataFileName(r.format, split)), { force: true });
      continue;
    }
    const file = await sink.close();
    dataFiles.push({ ...file, downloadName: `${workspaceName}-${r.format}-${stamp}.${file.name.slice(r.format.length + 1)}` });
  }
  return dataFiles;
}

function summaryOf(r: Resolved, plan: ExportPlan, tally: ExportTally, dataFiles: ExportedFile[]): ExportSummary {
  const notes = [...plan.notes];
  if (tally.duplicatesDropped)
    notes.push(`${tally.duplicatesDropped} records identical to an earlier record (after redaction) were left out`);
  if (tally.cutCells) notes.push(`${tally.cutCells} CSV cells were longer than Excel's 32,767 characters and were truncated with a marker`);
  const tokens = r.format === 'raw' || r.format === 'csv' ? null : tally.tokens;
  if (tokens?.estimated) {
    notes.push(
      `token totals are estimates (about 4 characters of Latin script or 1 other character per token): only examples that could exceed ${tokens.limit} tokens were counted with the ${tokens.encoding} tokenizer`,
    );
  }
  return {
    included: {
      statuses: r.includeUnreviewed ? ['approved', 'auto_approved', 'pending', 'needs_review'] : ['approved', 'auto_approved'],
      minQuality: r.minQuality,
      sampleTypes: r.sampleTypes,
      balanced: r.balance,
    },
    balance: tally.balance,
    folded: { approved: plan.foldedApproved.count, total: plan.foldedTotal, samples: plan.foldedApproved.listed },
    identicalDropped: { count: tally.duplicatesDropped, sampleIds: tally.duplicateSampleIds },
    balancedOut: plan.balancedOut,
    tokens,
    languages: tally.languageList(),
    split: {
      by: r.splitBy,
      requested: r.trainSplit,
      achieved: plan.achievedTrainShare,
      validationWritten: dataFiles.some((x) => x.name.includes('.validation.')),
    },
    csvCellsTruncated: tally.cutCells,
    notes,
  };
}

/** dataset_info.json, a licence file when needed, and the card, beside the data files. */
function writeFolderFiles(
  r: Resolved,
  outDir: string,
  dataFiles: ExportedFile[],
  c: { total: number; avgQuality: number | null; now: number; summary: ExportSummary },
): ExportedFile[] {
  const extra: ExportedFile[] = [];
  const infoFile = writeDatasetInfo(outDir, r.format, dataFiles);
  if (infoFile) extra.push({ name: path.basename(infoFile), path: infoFile, ...fileSha256(infoFile) });
  const license = writeLicenseFile(outDir, r.cfg.export);
  if (license) extra.push({ name: path.basename(license), path: license, ...fileSha256(license) });
  const cardFile = writeDatasetCard(outDir, {
    format: r.format,
    files: dataFiles,
    total: c.total,
    avgQuality: c.avgQuality,
    includePii: r.includePii,
    seed: r.seed,
    exportedAt: c.now,
    license: r.cfg.export,
    summary: c.summary,
  });
  extra.push({ name: 'README.md', path: cardFile, ...fileSha256(cardFile) });
  return extra;
}

/** Closes the files, writes the card and dataset_info, records the export. */
export async function finishExport(
  ctx: ServiceContext,
  r: Resolved,
  plan: ExportPlan,
  f: { outDir: string; now: number; sinks: Sinks; tally: ExportTally; written: Written },
): Promise<ExportResult> {
  const { outDir, now, tally, written } = f;
  const dataFiles = await closeSinks(ctx, r, outDir, f.sinks, now);
  if (!dataFiles.length) throw new AppError('Invalid', emptyExportMessage(ctx, r));
  const total = dataFiles.reduce((n, x) => n + (x.records ?? 0), 0);
  const avgQuality = written.qualityCount ? Math.round((written.qualitySum / written.qualityCount) * 1000) / 1000 : null;
  const summary = summaryOf(r, plan, tally, dataFiles);
  const files = [...dataFiles, ...writeFolderFiles(r, outDir, dataFiles, { total, avgQuality, now, summary })];
  // one checksum for the export: SHA-256 over the sha256sum-style manifest of its data files
  const checksum = createHash('sha256')
    .update(dataFiles.map((x) => `${x.sha256}  ${x.name}\n`).join(''))
    .digest('hex');
  const exportId = ulid(now);
  const train = dataFiles.find((x) => x.name.includes('.train.'))?.records ?? 0;
  const validation = dataFiles.find((x) => x.name.includes('.validation.'))?.records ?? 0;
  insertDatasetExport(ctx.db, {
    id: exportId,
    name: path.basename(outDir),
    format: r.format,
    types: JSON.stringify(r.sampleTypes),
    filters: JSON.stringify({
      includeUnreviewed: r.includeUnreviewed,
      minQuality: r.minQuality,
      balance: r.balance,
      since: r.since,
      until: r.until,
      trainSplit: r.trainSplit,
      splitBy: r.splitBy,
      seed: r.seed,
      bom: r.bom,
      targetModel: r.targetModel,
    }),
    total,
    approved: written.approved,
    train,
    validation,
    avg: avgQuality,
    pii: r.includePii ? 1 : 0,
    path: outDir,
    size: files.reduce((a, x) => a + x.bytes, 0),
    checksum,
    files: JSON.stringify(
      files.map((x) => ({
        name: x.name,
        bytes: x.bytes,
        sha256: x.sha256,
        records: x.records ?? null,
        downloadName: x.downloadName ?? null,
      })),
    ),
    by: actorOf(ctx),
    at: now,
    summary: JSON.stringify(summary),
  });
  return {
    exportId,
    outDir,
    format: r.format,
    files,
    total,
    train,
    validation,
    approved: written.approved,
    avgQuality,
    includePii: r.includePii,
    tokenWarnings: { count: tally.tokens.overLimit, sampleIds: tally.tokens.sampleIds },
    checksum,
    summary,
  };
}
