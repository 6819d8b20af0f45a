// Review at scale and team curation: the review queue with filters, reservations, bulk actions,
// history, guidelines, per-value PII decisions, curators, second pass and agreement. Pure TS + zod.
import { z } from 'zod';
import { ANNOTATION_STATUSES, MEMORY_FILES, SAMPLE_TYPES } from '../domain';
import { empty, id, mutation, query } from './define';
import type { SampleRow } from './dataset';

export const FEEDBACK_KINDS = ['reject', 'correction', 'constraint', 'success', 'confusion', 'preference'] as const;
export const QUEUE_SORTS = ['newest', 'oldest', 'quality_desc', 'quality_asc'] as const;
export const PII_SCOPES = ['session', 'workspace', 'global'] as const;
const statusAction = z.enum(['approve', 'reject', 'needs_review']);

/** PII values match whatever their case and spacing: "Alice@Example.com " is the same address. */
export const normalizePiiValue = (v: string): string => v.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();

export const reviewFilterSchema = z.strictObject({
  /** open = pending or needs review (the default queue); all = any status. */
  status: z.enum([...ANNOTATION_STATUSES, 'open', 'all']).default('open'),
  type: z.enum(SAMPLE_TYPES).optional(),
  minQuality: z.number().min(0).max(1).optional(),
  maxQuality: z.number().min(0).max(1).optional(),
  pii: z.enum(['with', 'without']).optional(),
  file: z.enum(MEMORY_FILES).optional(),
  sessionId: z.string().min(1).max(500).optional(),
  signal: z.enum(FEEDBACK_KINDS).optional(),
  clusterId: z.string().min(1).max(200).optional(),
  /** second: the second-pass queue (samples another curator labelled, waiting for the acting one). */
  pass: z.enum(['first', 'second']).default('first'),
});
export type ReviewFilter = z.input<typeof reviewFilterSchema>;
export type QueueSort = (typeof QUEUE_SORTS)[number];
export type PiiScope = (typeof PII_SCOPES)[number];

export interface QueueRow extends SampleRow {
  annotatedBy: string | null;
}
export interface QueuePageDto {
  items: QueueRow[];
  nextCursor: string | null;
  total: number;
}
export interface ReserveResultDto {
  held: string[];
  taken: { id: string; curator: string; until: number }[];
}
export interface BulkResultDto {
  batchId: string | null;
  count: number;
  dryRun: boolean;
}
export interface HistoryEntryDto {
  seq: number;
  sampleId: string;
  sampleType: string;
  action: string;
  reason: string | null;
  count: number;
  batchId: string | null;
  at: number;
  undone: boolean;
}
export interface GuidelinesDto {
  markdown: string;
  updatedAt: number | null;
}
export interface ReviewSettingsDto {
  rejectReasons: string[];
}
export interface PiiValueDto {
  value: string;
  type: string;
  sessionSamples: number | null;
  workspaceSamples: number;
  spans: number;
  redacted: number;
}
export interface PiiValueDecisionDto {
  id: number;
  value: string;
  scope: PiiScope;
  sessionId: string | null;
  decision: 'redact' | 'keep';
  actor: string;
  samples: number;
  spans: number;
  createdAt: number;
  undoneAt: number | null;
  undoneBy: string | null;
  dryRun?: boolean;
}
export interface CuratorDto {
  name: string;
  role: 'curator' | 'lead';
  isLocal: boolean;
  hasToken: boolean;
  createdAt: number;
  revokedAt: number | null;
}
export interface WhoAmIDto {
  name: string;
  role: 'curator' | 'lead';
  isLocal: boolean;
  needsName: boolean;
}
export interface AgreementFigureDto {
  n: number;
  raw: number | null;
  kappa: number | null;
}
export interface AgreementReportDto {
  overall: AgreementFigureDto;
  perLabel: Record<string, AgreementFigureDto>;
  waiting: number;
  curators: { name: string; first: number; second: number }[];
  disagreements: {
    sampleId: string;
    sampleType: string;
    firstCurator: string;
    firstLabel: string;
    secondCurator: string;
    secondLabel: string;
    secondAt: number;
  }[];
  adjudicated: number;
  reviewers: { name: string; actions: number }[];
}

const ids = z.array(id).min(1).max(50);

export const curationContracts = {
  'review.queue': query<QueuePageDto>()(
    z.strictObject({
      filter: reviewFilterSchema.default({ status: 'open', pass: 'first' }),
      sort: z.enum(QUEUE_SORTS).default('newest'),
      limit: z.number().int().min(1).max(500).default(100),
      cursor: z.string().max(500).optional(),
    }),
    'The review queue: filtered, sorted, with its true size; samples other curators hold are left out',
  ),
  'review.reserve': mutation<ReserveResultDto>()(z.strictObject({ ids }), 'Hold samples for the acting curator for a few minutes'),
  'review.release': mutation<{ released: number }>()(z.strictObject({ ids }), 'Give held samples back to the queue (skip)'),
  'review.bulk': mutation<BulkResultDto>()(
    z.strictObject({
      filter: reviewFilterSchema,
      action: statusAction,
      reason: z.string().trim().max(200).optional(),
      notes: z.string().max(5000).optional(),
      dryRun: z.boolean().default(false),
    }),
    'Label every sample a filter or cluster selects (one undo takes the whole batch back); dryRun counts them',
  ),
  'review.history': query<HistoryEntryDto[]>()(z.strictObject({ limit: z.number().int().min(1).max(100).default(20) }), "The acting curator's last review decisions"),
  'review.guidelines': query<GuidelinesDto>()(empty, "The team's review guidelines (Markdown, stored in the workspace)"),
  'review.setGuidelines': mutation<GuidelinesDto>()(z.strictObject({ markdown: z.string().max(100_000) }), 'Save the review guidelines'),
  'review.settings': query<ReviewSettingsDto>()(empty, 'Reject reasons offered in Review'),
  'review.setSettings': mutation<ReviewSettingsDto>()(
    z.strictObject({ rejectReasons: z.array(z.string().max(80)).max(9) }),
    'Change the reject reasons (at most 9, one key each)',
  ),
  'review.startSecondPass': mutation<{ added: number; eligible: number; dryRun: boolean }>()(
    z.strictObject({ share: z.number().gt(0).max(1), seed: z.string().max(100).optional(), dryRun: z.boolean().default(false) }),
    'Send labelled samples (all, or a random share) to a second pass by a different curator',
  ),
  'review.agreement': query<AgreementReportDto>()(empty, "Agreement between first and second pass (Cohen's kappa, raw) and open disagreements"),
  'review.adjudicate': mutation<{ ok: true }>()(
    z.strictObject({ sampleId: id, action: statusAction, notes: z.string().max(5000).optional() }),
    'A lead settles a disagreement: the sample takes this label',
  ),
  'pii.values': query<PiiValueDto[]>()(
    z.strictObject({ sessionId: id.optional(), limit: z.number().int().min(1).max(2000).default(500) }),
    'Distinct PII values with how many samples hold each',
  ),
  'pii.decideValue': mutation<PiiValueDecisionDto>()(
    z.strictObject({
      value: z.string().min(1).max(500),
      decision: z.enum(['redact', 'keep']),
      scope: z.enum(PII_SCOPES),
      sessionId: id.optional(),
      dryRun: z.boolean().default(false),
    }),
    'Redact or keep one PII value in a session, the workspace or everywhere; dryRun counts the samples it covers',
  ),
  'pii.undoValueDecision': mutation<PiiValueDecisionDto>()(z.strictObject({ id: z.number().int().min(1) }), 'Undo a per-value PII decision'),
  'pii.valueDecisions': query<PiiValueDecisionDto[]>()(empty, 'Per-value PII decisions, newest first'),
  'curators.me': query<WhoAmIDto>()(empty, 'The acting curator'),
  'curators.setLocalName': mutation<CuratorDto>()(z.strictObject({ name: z.string().trim().min(1).max(64) }), "Name the desktop app's curator (asked once)"),
  'curators.list': query<CuratorDto[]>()(empty, 'Curators of the workspace (never their tokens)'),
};
