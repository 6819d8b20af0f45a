// Dataset samples: list, detail, review and undo, collection, stats, exports, clusters, the judged
// writer's quality and missed writes. Each output is a zod schema with its TS type inferred from it.
import { z } from 'zod';
import { ANNOTATION_STATUSES, EXPORT_FORMATS, GATE_DECISIONS, MEMORY_FILES, SAMPLE_TYPES } from '../domain';
import { cursor, empty, epochMs, id, job, limit, mutation, pageOf, query } from './define';
import type { AuditRow, ContextItemDto, GateDecisionRow, TurnDto } from './index';

const annotationStatus = z.enum(ANNOTATION_STATUSES);
const sampleType = z.enum(SAMPLE_TYPES);
const countsBy = <K extends z.ZodEnum>(key: K) => z.partialRecord(key, z.number());

export const qualityFactorsSchema = z.object({
  conversationClarity: z.number(),
  decisionConfidence: z.number(),
  factVerifiability: z.number(),
});
export type QualityFactors = z.infer<typeof qualityFactorsSchema>;

/** A kind outside curation's FEEDBACK_KINDS may come from an importer: it is kept as given. */
export const feedbackSignalSchema = z.object({ kind: z.string(), evidence: z.string(), turnId: z.string().optional() });
export type FeedbackSignalDto = z.infer<typeof feedbackSignalSchema>;

export const PII_SPAN_DECISIONS = ['redact', 'keep'] as const;
export type PiiSpanDecision = (typeof PII_SPAN_DECISIONS)[number];
export const piiSpanSchema = z.object({
  id: z.string(),
  type: z.string(),
  start: z.number(),
  end: z.number(),
  value: z.string(),
  confidence: z.number(),
  detector: z.string(),
  /** The curator's choice; default is redact. */
  decision: z.enum(PII_SPAN_DECISIONS),
  /** Which text of the sample the offsets refer to (e.g. "conversation.0.message"); absent = the whole content text. */
  field: z.string().optional(),
});
export type PiiSpanDto = z.infer<typeof piiSpanSchema>;

export const sampleRowSchema = z.object({
  id: z.string(),
  sampleType,
  sessionId: z.string(),
  turnId: z.string().nullable(),
  decisionId: z.string().nullable(),
  auditId: z.string().nullable(),
  qualityScore: z.number().nullable(),
  annotationStatus,
  containsPii: z.boolean(),
  collectionStrategy: z.string().nullable(),
  clusterId: z.string().nullable(),
  createdAt: z.number(),
  annotatedAt: z.number().nullable(),
  /** A one-line summary for list views (the fact or the user message). */
  summary: z.string(),
  /** Other samples in its near-duplicate cluster (list views show "3 near-duplicates"). */
  nearDuplicates: z.number().optional(),
});
export type SampleRow = z.infer<typeof sampleRowSchema>;

// The recorded-workspace parts are the records/guardian contracts' own types.
export const sampleDetailSchema = sampleRowSchema.extend({
  content: z.unknown(),
  qualityFactors: qualityFactorsSchema.nullable(),
  annotatedBy: z.string().nullable(),
  annotationNotes: z.string().nullable(),
  piiRedactedContent: z.string().nullable(),
  piiSpans: z.array(piiSpanSchema),
  feedbackSignals: z.array(feedbackSignalSchema),
  turn: z.custom<TurnDto>().nullable(),
  context: z.array(z.custom<ContextItemDto>()),
  decision: z.custom<GateDecisionRow>().nullable(),
  audit: z.custom<AuditRow>().nullable(),
});
export type SampleDetail = z.infer<typeof sampleDetailSchema>;

export const REVIEW_ACTIONS = ['approve', 'reject', 'needs_review', 'edit'] as const;
export type ReviewAction = (typeof REVIEW_ACTIONS)[number];
export const reviewOutcomeSchema = z.object({
  sample: sampleRowSchema,
  /** The review event recorded, for undo. */
  reviewId: z.string(),
  previousStatus: annotationStatus,
});
export type ReviewOutcome = z.infer<typeof reviewOutcomeSchema>;
export const undoOutcomeSchema = z.object({
  /** The review that was undone; null when there was nothing to undo. */
  reviewId: z.string().nullable(),
  sample: sampleRowSchema.nullable(),
});
export type UndoOutcome = z.infer<typeof undoOutcomeSchema>;

export const collectResultSchema = z.object({
  dryRun: z.boolean(),
  scanned: z.number(),
  added: z.number(),
  skippedDuplicates: z.number(),
  byType: countsBy(sampleType),
  byStatus: countsBy(annotationStatus),
  elapsedMs: z.number(),
});
export type CollectResult = z.infer<typeof collectResultSchema>;

export const datasetStatsSchema = z.object({
  total: z.number(),
  byStatus: countsBy(annotationStatus),
  byType: z.array(z.object({ sampleType, count: z.number(), avgQuality: z.number().nullable() })),
  daily: z.array(z.object({ date: z.string(), count: z.number(), approved: z.number(), rejected: z.number() })),
  /** Ten buckets [0,0.1) ... [0.9,1]; unscored samples are counted apart. */
  qualityDistribution: z.array(z.object({ from: z.number(), to: z.number(), count: z.number() })),
  unscored: z.number(),
  containsPii: z.number(),
  clusters: z.number(),
  /** Samples past the queue: neither pending nor needs_review. */
  reviewed: z.number(),
});
export type DatasetStats = z.infer<typeof datasetStatsSchema>;

export const exportFileSchema = z.object({
  /** File name inside the export folder (no directories). */
  name: z.string(),
  role: z.enum(['train', 'validation', 'card', 'dataset_info', 'other']),
  bytes: z.number(),
  sha256: z.string(),
  /** A name that says what the file is once downloaded: <workspace>-<format>-<date>.<split>.jsonl. */
  downloadName: z.string().optional(),
});
export type ExportFileDto = z.infer<typeof exportFileSchema>;

export const labelBalanceSchema = z.object({
  memory_gate: z.object({ write: z.number(), no_write: z.number() }),
  write_guardian: z.object({ write: z.number(), refuse: z.number(), skip: z.number() }),
  /** KTO only: desirable (label true) and undesirable (false) examples. */
  kto: z.object({ desirable: z.number(), undesirable: z.number() }).optional(),
});
export type LabelBalance = z.infer<typeof labelBalanceSchema>;
export const tokenReportSchema = z.object({
  model: z.string(),
  encoding: z.string(),
  limit: z.number(),
  total: z.number(),
  max: z.number(),
  overLimit: z.number(),
  /** Up to 20 samples whose example is over the limit. */
  sampleIds: z.array(z.string()),
  /** Total and max include estimates: only examples that could reach the limit were counted with the tokenizer. */
  estimated: z.boolean().optional(),
});
export type TokenReport = z.infer<typeof tokenReportSchema>;
export const exportSummarySchema = z.object({
  /** Which review statuses and quality floor the export took. */
  included: z.object({
    statuses: z.array(z.string()),
    minQuality: z.number().nullable(),
    sampleTypes: z.array(sampleType),
    balanced: z.boolean(),
  }),
  balance: labelBalanceSchema,
  /** Approved samples folded into a near-duplicate cluster's representative, and which one kept. */
  folded: z.object({
    approved: z.number(),
    total: z.number(),
    samples: z.array(z.object({ sampleId: z.string(), keptSampleId: z.string() })),
  }),
  /** Records dropped because an identical record (after redaction) was already written. */
  identicalDropped: z.object({ count: z.number(), sampleIds: z.array(z.string()) }),
  balancedOut: z.number(),
  tokens: tokenReportSchema.nullable(),
  languages: z.array(z.string()),
  split: z.object({
    by: z.enum(['session', 'turn']),
    requested: z.number(),
    achieved: z.number().nullable(),
    validationWritten: z.boolean(),
  }),
  csvCellsTruncated: z.number(),
  notes: z.array(z.string()),
});
export type ExportSummary = z.infer<typeof exportSummarySchema>;

export const exportRowSchema = z.object({
  id: z.string(),
  name: z.string(),
  format: z.enum(EXPORT_FORMATS),
  sampleTypes: z.array(sampleType),
  totalSamples: z.number(),
  trainSamples: z.number(),
  validationSamples: z.number(),
  avgQualityScore: z.number().nullable(),
  includePii: z.boolean(),
  /** Folder (or main file) the export wrote. */
  path: z.string(),
  bytes: z.number().nullable(),
  checksum: z.string().nullable(),
  files: z.array(exportFileSchema),
  exportedBy: z.string().nullable(),
  exportedAt: z.number(),
  /** What the export included, label balance, folded near-duplicates, tokens, languages, notes (null for old exports). */
  summary: exportSummarySchema.nullable(),
});
export type ExportRow = z.infer<typeof exportRowSchema>;

export const exportPreviewSchema = z.object({
  format: z.enum(EXPORT_FORMATS),
  /** The first records exactly as they will be written (one JSONL line or CSV row each). */
  records: z.array(z.string()),
  fileName: z.string(),
  /** How many samples the export would contain with these options. */
  total: z.number(),
  includePii: z.boolean(),
  /** Samples among `total` that contain PII (a warning when includePii is on). */
  withPii: z.number(),
});
export type ExportPreview = z.infer<typeof exportPreviewSchema>;

export const sampleClusterMemberSchema = z.object({
  id: z.string(),
  sampleType: z.string(),
  annotationStatus: z.string(),
  qualityScore: z.number().nullable(),
  corrected: z.boolean(),
  edited: z.boolean(),
  picked: z.boolean(),
  createdAt: z.number(),
});
export type SampleClusterMember = z.infer<typeof sampleClusterMemberSchema>;
export const sampleClusterSchema = z.object({
  clusterId: z.string(),
  members: z.array(sampleClusterMemberSchema),
  representativeId: z.string(),
  representativeBecause: z.enum(['pick', 'corrected', 'edited', 'first']),
});
export type SampleCluster = z.infer<typeof sampleClusterSchema>;

const rate = z.number().nullable();
export const gateTypeQualitySchema = z.object({
  decision: z.enum(GATE_DECISIONS),
  /** Judged decisions the gate made of this type. */
  predicted: z.number(),
  /** Judged decisions whose right answer is this type. */
  support: z.number(),
  precision: rate,
  recall: rate,
});
export type GateTypeQuality = z.infer<typeof gateTypeQualitySchema>;
export const guardianActionQualitySchema = z.object({
  action: z.enum(['write', 'refuse', 'skip']),
  judged: z.number(),
  correct: z.number(),
  accuracy: rate,
});
export type GuardianActionQuality = z.infer<typeof guardianActionQualitySchema>;
export const fileChurnSchema = z.object({
  file: z.enum(MEMORY_FILES),
  writes: z.number(),
  rollbacks: z.number(),
  corrections: z.number(),
  /** (rollbacks + corrections) / writes */
  churn: rate,
});
export type FileChurn = z.infer<typeof fileChurnSchema>;
export const weekQualitySchema = z.object({ week: z.string(), judged: z.number(), accuracy: rate, overWriteRate: rate });
export type WeekQuality = z.infer<typeof weekQualitySchema>;
export const writerQualitySchema = z.object({
  judgedDecisions: z.number(),
  gateAccuracy: rate,
  gate: z.array(gateTypeQualitySchema),
  guardian: z.array(guardianActionQualitySchema),
  /** Of the judged decisions where the gate wrote, the share that should have been NO_WRITE. */
  overWriteRate: rate,
  overWrites: z.number(),
  judgedWrites: z.number(),
  churn: z.array(fileChurnSchema),
  weekly: z.array(weekQualitySchema),
});
export type WriterQuality = z.infer<typeof writerQualitySchema>;

export const missedWriteOutcomeSchema = z.object({
  correctionId: z.string(),
  decision: z.string(),
  addedSamples: z.number(),
  supersededSamples: z.number(),
});
export type MissedWriteOutcome = z.infer<typeof missedWriteOutcomeSchema>;

// ---- inputs ----
const timeRange = { since: epochMs.optional(), until: epochMs.optional() };
const exportOptions = {
  format: z.enum(EXPORT_FORMATS),
  name: z
    .string()
    .trim()
    .min(1)
    .max(120)
    .regex(/^[\w.\- ]+$/, 'letters, digits, spaces, dot, dash, underscore')
    .optional(),
  sampleTypes: z.array(sampleType).max(SAMPLE_TYPES.length).optional(),
  trainSplit: z.number().min(0).max(1).default(0.8),
  onlyApproved: z.boolean().default(true),
  /** Also pending and needs_review samples (the default export holds approved and auto-approved only). */
  includeUnreviewed: z.boolean().default(false),
  minQuality: z.number().min(0).max(1).optional(),
  /** No quality floor (the default floor is the collection config's minQualityScore). */
  includeBelowQuality: z.boolean().default(false),
  /** Downsample each step's majority label to its minority count. */
  balance: z.boolean().default(false),
  splitBy: z.enum(['session', 'turn']).default('session'),
  includePii: z.boolean().default(false),
  seed: z.number().int().optional(),
  /** Replace files of an existing export folder of the same name (default: refuse). */
  overwrite: z.boolean().default(false),
  ...timeRange,
};
const reason = z.string().trim().min(1, 'a reason is required').max(2000);

export const datasetContracts = {
  'dataset.list': query(pageOf(sampleRowSchema))(
    z.strictObject({
      status: annotationStatus.optional(),
      type: sampleType.optional(),
      qualityAbove: z.number().min(0).max(1).optional(),
      sessionId: id.optional(),
      limit: limit(),
      cursor,
    }),
    'Dataset samples',
  ),
  'dataset.get': query(sampleDetailSchema)(z.strictObject({ id }), 'A sample with its conversation, factors, signals and PII spans'),
  'dataset.review': mutation(reviewOutcomeSchema)(
    z.strictObject({
      id,
      action: z.enum(REVIEW_ACTIONS),
      notes: z.string().max(5000).optional(),
      /** For reject: a reason from the workspace's list. */
      reason: z.string().trim().max(200).optional(),
      /** New sample content, for action 'edit'. */
      content: z.unknown().optional(),
    }),
    'Approve, reject, flag or edit a sample (saved immediately, undoable)',
  ),
  'dataset.undo': mutation(undoOutcomeSchema)(
    z.strictObject({ reviewId: id.optional() }),
    'Undo the last review (or the given one); works across reloads',
  ),
  'dataset.collect': job(collectResultSchema)(
    z.strictObject({
      sessionId: id.optional(),
      type: z.enum(['all', 'positive', 'negative']).default('all'),
      autoApprove: z.boolean().default(false),
      dryRun: z.boolean().default(false),
      ...timeRange,
    }),
    'Collect samples from the recorded workspace (job)',
  ),
  'dataset.stats': query(datasetStatsSchema)(empty, 'Counts by status, type, day and quality'),
  'dataset.export': job(exportRowSchema)(z.strictObject(exportOptions), 'Write train/validation files, card and dataset_info (job)'),
  'dataset.previewExport': query(exportPreviewSchema)(
    z.strictObject({ ...exportOptions, limit: limit(50, 5) }),
    'The first records exactly as the export would write them',
  ),
  'dataset.setPiiSpanDecision': mutation(sampleDetailSchema)(
    z.strictObject({ sampleId: id, spanId: z.string().min(1).max(300), decision: z.enum(PII_SPAN_DECISIONS) }),
    'Accept (redact) or reject (keep) one detected PII span; returns the updated sample',
  ),
  'dataset.exports': query(z.array(exportRowSchema))(
    z.strictObject({ limit: limit(200, 50) }),
    'Past exports with their files and checksums',
  ),
  'dataset.writerQuality': query(writerQualitySchema)(
    empty,
    'The judged writer: gate precision/recall per decision, guardian accuracy, over-writes, churn, weekly trend',
  ),
  'dataset.cluster': query(sampleClusterSchema)(z.strictObject({ id }), "A sample's near-duplicate cluster and the member an export keeps"),
  'dataset.pickRepresentative': mutation(sampleClusterSchema)(
    z.strictObject({ id }),
    'Make a sample the representative its cluster exports',
  ),
  'dataset.markMissedWrite': mutation(missedWriteOutcomeSchema)(
    z.strictObject({
      decisionId: id,
      fact: z.string().trim().min(1, 'a fact is required').max(20_000),
      file: z.enum(MEMORY_FILES),
      reason,
    }),
    'Mark a NO_WRITE decision as a missed write: its sample becomes a positive with this fact and file',
  ),
};
