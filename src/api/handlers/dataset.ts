// Dataset curation: samples, review, PII decisions, collect and export jobs, mapped to the contract's DTOs.
import path from 'node:path';
import type { ExportFileDto, ExportRow, ExportSummary, PiiSpanDto, SampleDetail, SampleRow } from '../../shared/contract';
import type { AnnotationStatus, ExportFormat, SampleType } from '../../shared/domain';
import { AppError, isAppError } from '../../shared/errors';
import { STATE_DIR, type DB } from '../../core/db/connection';
import type { ServiceContext } from '../../core/context';
import { findLastEventSeqOfSample } from '../../core/db/repositories/annotationEvents';
import { findDatasetExport, listDatasetExports, type DatasetExportRow } from '../../core/db/repositories/datasetExports';
import {
  collectSamples,
  datasetStats,
  exportDataset,
  getSample,
  listSamples,
  previewExport,
  exportSelectionCounts,
  reviewSample,
  setPiiSpanDecision,
  undoLastReview,
  type DatasetSample,
  dataFileName,
  markMissedWrite,
  nearDuplicateCounts,
  pickRepresentative,
  sampleCluster,
  writerQuality,
  type ExportOptions,
  type SampleContent,
} from '../../core/dataset';
import { lastOpenReviewSeq } from '../../core/dataset/review';
import { getAudit } from '../../core/guardian';
import { refuseFilledFolder } from '../../core/lifecycle/outputFiles';
import { loadSettings } from '../../core/lifecycle/settings';
import { getTurn } from '../../core/sessions';
import type { Handlers, HandlerEnv } from '../registry';

const datasetConfig = (dir: string) => loadSettings(dir).settings.datasetCollection;

/** A one-line description of a sample for list views: its fact, else its first user message. */
function summaryOf(content: unknown): string {
  const c = (content ?? {}) as Record<string, unknown>;
  for (const key of ['correctFact', 'incorrectFact', 'candidateFact']) if (typeof c[key] === 'string' && c[key]) return c[key] as string;
  const conv = (Array.isArray(c.conversation) ? c.conversation : Array.isArray(c.context) ? c.context : []) as Array<{
    role?: string;
    message?: string;
  }>;
  const msg = [...conv].reverse().find((m) => m?.role === 'user')?.message ?? conv[0]?.message;
  return typeof msg === 'string' ? msg.slice(0, 300) : '';
}

export const sampleRowDto = (s: DatasetSample): SampleRow => ({
  id: s.id,
  sampleType: s.sampleType,
  sessionId: s.sessionId,
  turnId: s.turnId,
  decisionId: s.decisionId,
  auditId: s.auditId,
  qualityScore: s.qualityScore,
  annotationStatus: s.annotationStatus,
  containsPii: s.containsPii,
  collectionStrategy: s.collectionStrategy,
  clusterId: s.clusterId,
  createdAt: s.createdAt,
  annotatedAt: s.annotatedAt,
  summary: summaryOf(s.content),
});

function sampleDetailDto(ctx: ServiceContext, s: DatasetSample): SampleDetail {
  const spans: PiiSpanDto[] = s.piiSpans.map((p) => ({
    id: p.id,
    type: p.type,
    start: p.start,
    end: p.end,
    value: p.value,
    confidence: p.confidence,
    detector: p.detector,
    decision: p.accepted ? 'redact' : 'keep',
    field: p.field,
  }));
  let turn: SampleDetail['turn'] = null;
  let context: SampleDetail['context'] = [];
  let decision: SampleDetail['decision'] = null;
  if (s.turnId) {
    try {
      const t = getTurn(ctx, s.turnId);
      turn = t.turn;
      context = t.context;
      decision = t.decisions.find((x) => x.id === s.decisionId) ?? null;
    } catch (e) {
      if (!(isAppError(e) && (e as AppError).kind === 'NotFound')) throw e;
    }
  }
  let audit: SampleDetail['audit'] = null;
  if (s.auditId) {
    try {
      audit = getAudit(ctx, s.auditId);
    } catch (e) {
      if (!(isAppError(e) && (e as AppError).kind === 'NotFound')) throw e;
    }
  }
  return {
    ...sampleRowDto(s),
    nearDuplicates: nearDuplicateCounts(ctx, [s.id]).get(s.id) ?? 0,
    content: s.content,
    qualityFactors: s.qualityFactors,
    annotatedBy: s.annotatedBy,
    annotationNotes: s.annotationNotes,
    piiRedactedContent: s.piiRedactedContent ? JSON.stringify(s.piiRedactedContent) : null,
    piiSpans: spans,
    feedbackSignals: s.feedbackSignals.map((f) => ({ kind: f.type, evidence: f.evidence, turnId: f.turnId })),
    turn,
    context,
    decision,
    audit,
  };
}

function fileRole(name: string): ExportFileDto['role'] {
  // <format>.train.jsonl (and train.jsonl of exports made before per-format names)
  if (/(^|\.)train\.(jsonl|csv)$/.test(name)) return 'train';
  if (/(^|\.)validation\.(jsonl|csv)$/.test(name)) return 'validation';
  if (name === 'README.md') return 'card';
  if (name === 'dataset_info.json') return 'dataset_info';
  return 'other';
}

function exportRowDto(r: DatasetExportRow): ExportRow {
  const files = (
    r.files
      ? (JSON.parse(r.files) as Array<{ name?: string; path?: string; bytes?: number; sha256?: string; downloadName?: string | null }>)
      : []
  ).map((f) => {
    const name = path.basename(f.name ?? f.path ?? '');
    return {
      name,
      role: fileRole(name),
      bytes: f.bytes ?? 0,
      sha256: f.sha256 ?? '',
      ...(f.downloadName ? { downloadName: path.basename(f.downloadName) } : {}),
    };
  });
  return {
    id: r.id,
    name: r.export_name,
    format: r.export_format,
    sampleTypes: JSON.parse(r.sample_types) as SampleType[],
    totalSamples: r.total_samples ?? 0,
    trainSamples: r.train_samples ?? 0,
    validationSamples: r.validation_samples ?? 0,
    avgQualityScore: r.avg_quality_score,
    includePii: r.include_pii === 1,
    path: r.file_path,
    bytes: r.file_size_bytes,
    checksum: r.checksum,
    files,
    exportedBy: r.exported_by,
    exportedAt: r.exported_at,
    summary: r.summary ? (JSON.parse(r.summary) as ExportSummary) : null,
  };
}

function exportById(db: DB, id: string): ExportRow {
  const row = findDatasetExport(db, id);
  if (!row) throw new AppError('NotFound', `export ${id} not found`);
  return exportRowDto(row);
}

interface ExportInput {
  format: ExportFormat;
  name?: string;
  sampleTypes?: SampleType[];
  trainSplit: number;
  onlyApproved: boolean;
  minQuality?: number;
  includePii: boolean;
  seed?: number;
  since?: number;
  until?: number;
  overwrite?: boolean;
  includeUnreviewed?: boolean;
  includeBelowQuality?: boolean;
  balance?: boolean;
  splitBy?: 'session' | 'turn';
}

function exportOptions(env: HandlerEnv, input: ExportInput): ExportOptions {
  return {
    format: input.format,
    // The renderer only names the folder; it always lands under the workspace's exports folder.
    outDir: input.name ? path.join(env.session.dir, STATE_DIR, 'exports', input.name) : undefined,
    trainSplit: input.trainSplit,
    seed: input.seed,
    onlyApproved: input.onlyApproved,
    minQuality: input.minQuality,
    includePii: input.includePii,
    sampleTypes: input.sampleTypes,
    since: input.since,
    until: input.until,
    includeUnreviewed: input.includeUnreviewed,
    includeBelowQuality: input.includeBelowQuality,
    balance: input.balance,
    splitBy: input.splitBy,
    config: datasetConfig(env.session.dir),
  };
}

/**
 * How many samples an export with these options holds, and how many of them contain PII.
 * Mirrors the export's selection (dataset/export.ts): excluded sessions out, one sample per near-duplicate cluster.
 */

export const datasetHandlers = {
  'dataset.list': (input, env) => {
    const page = listSamples(env.session.serviceContext(), {
      status: input.status,
      type: input.type,
      qualityAbove: input.qualityAbove,
      sessionId: input.sessionId,
      limit: input.limit,
      cursor: input.cursor,
    });
    const near = nearDuplicateCounts(
      env.session.serviceContext(),
      page.items.map((x) => x.id),
    );
    return { items: page.items.map((x) => ({ ...sampleRowDto(x), nearDuplicates: near.get(x.id) ?? 0 })), nextCursor: page.nextCursor };
  },
  'dataset.get': (input, env) => {
    const ctx = env.session.serviceContext();
    return sampleDetailDto(ctx, getSample(ctx, input.id));
  },
  'dataset.review': async (input, env) => {
    const ctx = env.session.serviceContext();
    const previousStatus: AnnotationStatus = getSample(ctx, input.id).annotationStatus;
    const s = await reviewSample(ctx, {
      sampleId: input.id,
      action: input.action,
      notes: input.notes,
      reason: input.reason,
      content: input.content as SampleContent | undefined,
      config: datasetConfig(env.session.dir),
    });
    return { sample: sampleRowDto(s), reviewId: String(findLastEventSeqOfSample(ctx.db, input.id) ?? ''), previousStatus };
  },
  'dataset.undo': (input, env) => {
    const ctx = env.session.serviceContext();
    // Each curator undoes their own actions (lastOpenReviewSeq is per actor).
    const seq = lastOpenReviewSeq(ctx);
    const last = seq == null ? undefined : { seq };
    if (!last) return { reviewId: null, sample: null };
    if (input.reviewId !== undefined && input.reviewId !== String(last.seq)) {
      throw new AppError('Conflict', `review ${input.reviewId} is not the latest review; undo goes back one action at a time`);
    }
    const r = undoLastReview(ctx);
    return { reviewId: String(last.seq), sample: sampleRowDto(r.sample) };
  },
  'dataset.collect': async (input, ctx, env) => {
    const started = performance.now();
    const r = await collectSamples(ctx, {
      since: input.since,
      until: input.until,
      sessionId: input.sessionId,
      type: input.type,
      autoApprove: input.autoApprove,
      dryRun: input.dryRun,
      config: datasetConfig(env.session.dir),
    });
    return {
      dryRun: r.dryRun,
      scanned: r.decisionsScanned,
      added: r.addedTotal,
      skippedDuplicates: r.alreadyCollected + r.duplicates,
      byType: r.added,
      byStatus: r.byStatus,
      elapsedMs: Math.round(performance.now() - started),
    };
  },
  'dataset.stats': (_input, env) => datasetStats(env.session.serviceContext()),
  'dataset.export': async (input, ctx, env) => {
    const opts = exportOptions(env, input);
    if (opts.outDir) refuseFilledFolder(opts.outDir, input.overwrite);
    const r = await exportDataset(ctx, opts);
    return exportById(ctx.db, r.exportId);
  },
  'dataset.previewExport': async (input, env) => {
    const ctx = env.session.serviceContext();
    const opts = exportOptions(env, input);
    const records = await previewExport(ctx, opts, input.limit);
    const counts = exportSelectionCounts(ctx, opts);
    return {
      format: input.format,
      records: records.map((r) => r.text.replace(/\r?\n$/, '')),
      fileName: dataFileName(input.format, 'train'),
      total: counts.total,
      includePii: input.includePii,
      withPii: counts.withPii,
    };
  },
  'dataset.setPiiSpanDecision': (input, env) => {
    const ctx = env.session.serviceContext();
    return sampleDetailDto(
      ctx,
      setPiiSpanDecision(ctx, { sampleId: input.sampleId, spanId: input.spanId, accepted: input.decision === 'redact' }),
    );
  },
  'dataset.writerQuality': (_input, env) => writerQuality(env.session.serviceContext()),
  'dataset.cluster': (input, env) => sampleCluster(env.session.serviceContext(), input.id),
  'dataset.pickRepresentative': (input, env) => pickRepresentative(env.session.serviceContext(), input.id),
  'dataset.markMissedWrite': (input, env) =>
    markMissedWrite(env.session.serviceContext(), {
      decisionId: input.decisionId,
      fact: input.fact,
      file: input.file,
      reason: input.reason,
      config: datasetConfig(env.session.dir),
    }),
  'dataset.exports': (input, env) => {
    return listDatasetExports(env.session.db, input.limit).map(exportRowDto);
  },
} satisfies Partial<Handlers>;
