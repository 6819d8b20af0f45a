// Export: the planned samples (exportPlan.ts, select) become records page by page (exportPages.ts) and are
// streamed to per-format train/validation files with a Hugging Face dataset card, a LLaMA-Factory
// dataset_info.json entry and a dataset_exports row that holds the summary (exportWrite.ts, write).
// Reads in keyset pages and writes through streams with backpressure, so memory stays flat.
import path from 'node:path';
import type { ExportSummary } from '../../shared/contract';
import type { DataSplit, ExportFormat } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { STATE_DIR } from '../db/connection';
import { withoutMmap } from '../db/bulk';
import { countPiiSamples } from '../db/repositories/exportSamples';
import { nowOf, type ServiceContext } from '../context';
import { CSV_FIELDS } from './formats';
import { clustersAreStale, reclusterSamples } from './dedupe';
import { emptyExportMessage, planExport, resolveExport, selectionOf, targetModelOf, type ExportOptions, type Resolved } from './exportPlan';
import { ExportTally, fitCells, recordText, type Counter } from './exportRecords';
import { ExportReader, exportPages } from './exportPages';
import { finishExport, openSinks, writeRecords } from './exportWrite';

export type { ExportOptions } from './exportPlan';
export { dataFileName } from './exportWrite';
export { exportContent, exportPages, type PageItem } from './exportPages';
export { fileSha256 } from '../files/checksum';

export interface ExportedFile {
  name: string;
  path: string;
  bytes: number;
  sha256: string;
  records?: number;
  /** A name that says what the file is when it leaves the folder: <workspace>-<format>-<date>.<split>.<ext>. */
  downloadName?: string;
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
  split: DataSplit;
  sampleId: string;
  /** The record object (CSV: the row as field -> value). */
  record: unknown;
  /** The exact text written for it (CSV: the row without header). */
  text: string;
}

/** How many samples an export with these options would write, and how many of them contain PII. */
export function exportSelectionCounts(ctx: ServiceContext, opts: ExportOptions): { total: number; withPii: number } {
  const r = resolveExport(opts);
  const plan = planExport(ctx, r);
  return { total: plan.rowids.length, withPii: countPiiSamples(ctx.db, selectionOf(r), plan.rowids) };
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
        out.push({ split: it.split, sampleId: it.sample.id, record, text: `${line}${r.format === 'csv' ? '\r\n' : '\n'}` });
      }
    }
    if (out.length >= n) return out;
  }
  return out;
}

/** Writes the dataset folder and records the export. Progress via ctx.progress, cancel via ctx.signal. */
export function exportDataset(ctx: ServiceContext, opts: ExportOptions): Promise<ExportResult> {
  return withoutMmap(ctx.db, () => writeExport(ctx, opts));
}

/** The target model's tokenizer; imported on demand (it takes a noticeable time to load). */
function tokenizerOf(r: Resolved): () => Promise<Counter> {
  const { encoding } = targetModelOf(r);
  return async () => {
    const mod =
      encoding === 'o200k_base' ? await import('gpt-tokenizer/encoding/o200k_base') : await import('gpt-tokenizer/encoding/cl100k_base');
    return (text: string) => mod.countTokens(text);
  };
}

/** Select (plan and pages) → records → write, then the card and the dataset_exports row. */
async function writeExport(ctx: ServiceContext, opts: ExportOptions): Promise<ExportResult> {
  const r = resolveExport(opts);
  const now = nowOf(ctx);
  // clusters of the old whole-sample scheme merged different facts: rebuild them before folding by them
  if (clustersAreStale(ctx.db)) reclusterSamples(ctx.db, r.cfg.dedupe);
  const plan = planExport(ctx, r);
  if (!plan.rowids.length) throw new AppError('Invalid', emptyExportMessage(ctx, r));
  const outDir = path.resolve(
    opts.outDir ??
      path.join(ctx.workspaceDir, STATE_DIR, 'exports', `dataset-${r.format}-${new Date(now).toISOString().replace(/[:.]/g, '-')}`),
  );
  const sinks = openSinks(outDir, r.format);
  const target = targetModelOf(r);
  const tally = new ExportTally(r.format, { model: target.model, encoding: target.encoding, limit: target.limit }, tokenizerOf(r));
  const written = await writeRecords(ctx, r, new ExportReader(ctx, r, plan, true), { outDir, total: plan.rowids.length, sinks, tally });
  return finishExport(ctx, r, plan, { outDir, now, sinks, tally, written });
}
