// Review at scale and team curation: the review queue with filters, reservations, bulk actions,
// history, guidelines, per-value PII decisions, curators, second pass and agreement. Pure TS + zod.
import { z } from 'zod';
import { ANNOTATION_STATUSES, MEMORY_FILES, SAMPLE_TYPES } from '../domain';
import { empty, id, mutation, query } from './define';
import { sampleRowSchema } from './dataset';

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

export const queueRowSchema = sampleRowSchema.extend({ annotatedBy: z.string().nullable() });
export type QueueRow = z.infer<typeof queueRowSchema>;
export const queuePageSchema = z.object({ items: z.array(queueRowSchema), nextCursor: z.string().nullable(), total: z.number() });
export type QueuePageDto = z.infer<typeof queuePageSchema>;
export const reserveResultSchema = z.object({
  held: z.array(z.string()),
  taken: z.array(z.object({ id: z.string(), curator: z.string(), until: z.number() })),
});
export type ReserveResult = z.infer<typeof reserveResultSchema>;
export const bulkResultSchema = z.object({ batchId: z.string().nullable(), count: z.number(), dryRun: z.boolean() });
export type BulkResult = z.infer<typeof bulkResultSchema>;
export const historyEntrySchema = z.object({
  seq: z.number(),
  sampleId: z.string(),
  sampleType: z.string(),
  action: z.string(),
  reason: z.string().nullable(),
  count: z.number(),
  batchId: z.string().nullable(),
  at: z.number(),
  undone: z.boolean(),
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;
export const guidelinesSchema = z.object({ markdown: z.string(), updatedAt: z.number().nullable() });
export type GuidelinesDto = z.infer<typeof guidelinesSchema>;
export const reviewSettingsSchema = z.object({ rejectReasons: z.array(z.string()) });
export type ReviewSettingsDto = z.infer<typeof reviewSettingsSchema>;
export const piiValueSchema = z.object({
  value: z.string(),
  type: z.string(),
  sessionSamples: z.number().nullable(),
  workspaceSamples: z.number(),
  spans: z.number(),
  redacted: z.number(),
});
export type PiiValue = z.infer<typeof piiValueSchema>;
export const piiValueDecisionSchema = z.object({
  id: z.number(),
  value: z.string(),
  scope: z.enum(PII_SCOPES),
  sessionId: z.string().nullable(),
  decision: z.enum(['redact', 'keep']),
  actor: z.string(),
  samples: z.number(),
  spans: z.number(),
  createdAt: z.number(),
  undoneAt: z.number().nullable(),
  undoneBy: z.string().nullable(),
  dryRun: z.boolean().optional(),
});
export type PiiValueDecisionDto = z.infer<typeof piiValueDecisionSchema>;
const curatorRole = z.enum(['curator', 'lead']);
export const curatorSchema = z.object({
  name: z.string(),
  role: curatorRole,
  isLocal: z.boolean(),
  hasToken: z.boolean(),
  createdAt: z.number(),
  revokedAt: z.number().nullable(),
});
export type Curator = z.infer<typeof curatorSchema>;
export const whoAmISchema = z.object({ name: z.string(), role: curatorRole, isLocal: z.boolean(), needsName: z.boolean() });
export type WhoAmIDto = z.infer<typeof whoAmISchema>;
export const agreementFigureSchema = z.object({ n: z.number(), raw: z.number().nullable(), kappa: z.number().nullable() });
export type AgreementFigure = z.infer<typeof agreementFigureSchema>;
export const agreementReportSchema = z.object({
  overall: agreementFigureSchema,
  perLabel: z.record(z.string(), agreementFigureSchema),
  waiting: z.number(),
  curators: z.array(z.object({ name: z.string(), first: z.number(), second: z.number() })),
  disagreements: z.array(
    z.object({
      sampleId: z.string(),
      sampleType: z.string(),
      firstCurator: z.string(),
      firstLabel: z.string(),
      secondCurator: z.string(),
      secondLabel: z.string(),
      secondAt: z.number(),
    }),
  ),
  adjudicated: z.number(),
  reviewers: z.array(z.object({ name: z.string(), actions: z.number() })),
});
export type AgreementReport = z.infer<typeof agreementReportSchema>;

const ids = z.array(id).min(1).max(50);

export const curationContracts = {
  'review.queue': query(queuePageSchema)(
    z.strictObject({
      filter: reviewFilterSchema.default({ status: 'open', pass: 'first' }),
      sort: z.enum(QUEUE_SORTS).default('newest'),
      limit: z.number().int().min(1).max(500).default(100),
      cursor: z.string().max(500).optional(),
    }),
    'The review queue: filtered, sorted, with its true size; samples other curators hold are left out',
  ),
  'review.reserve': mutation(reserveResultSchema)(z.strictObject({ ids }), 'Hold samples for the acting curator for a few minutes'),
  'review.release': mutation(z.object({ released: z.number() }))(z.strictObject({ ids }), 'Give held samples back to the queue (skip)'),
  'review.bulk': mutation(bulkResultSchema)(
    z.strictObject({
      filter: reviewFilterSchema,
      action: statusAction,
      reason: z.string().trim().max(200).optional(),
      notes: z.string().max(5000).optional(),
      dryRun: z.boolean().default(false),
    }),
    'Label every sample a filter or cluster selects (one undo takes the whole batch back); dryRun counts them',
  ),
  'review.history': query(z.array(historyEntrySchema))(
    z.strictObject({ limit: z.number().int().min(1).max(100).default(20) }),
    "The acting curator's last review decisions",
  ),
  'review.guidelines': query(guidelinesSchema)(empty, "The team's review guidelines (Markdown, stored in the workspace)"),
  'review.setGuidelines': mutation(guidelinesSchema)(z.strictObject({ markdown: z.string().max(100_000) }), 'Save the review guidelines'),
  'review.settings': query(reviewSettingsSchema)(empty, 'Reject reasons offered in Review'),
  'review.setSettings': mutation(reviewSettingsSchema)(
    z.strictObject({ rejectReasons: z.array(z.string().max(80)).max(9) }),
    'Change the reject reasons (at most 9, one key each)',
  ),
  'review.startSecondPass': mutation(z.object({ added: z.number(), eligible: z.number(), dryRun: z.boolean() }))(
    z.strictObject({ share: z.number().gt(0).max(1), seed: z.string().max(100).optional(), dryRun: z.boolean().default(false) }),
    'Send labelled samples (all, or a random share) to a second pass by a different curator',
  ),
  'review.agreement': query(agreementReportSchema)(
    empty,
    "Agreement between first and second pass (Cohen's kappa, raw) and open disagreements",
  ),
  'review.adjudicate': mutation(z.object({ ok: z.literal(true) }))(
    z.strictObject({ sampleId: id, action: statusAction, notes: z.string().max(5000).optional() }),
    'A lead settles a disagreement: the sample takes this label',
  ),
  'pii.values': query(z.array(piiValueSchema))(
    z.strictObject({ sessionId: id.optional(), limit: z.number().int().min(1).max(2000).default(500) }),
    'Distinct PII values with how many samples hold each',
  ),
  'pii.decideValue': mutation(piiValueDecisionSchema)(
    z.strictObject({
      value: z.string().min(1).max(500),
      decision: z.enum(['redact', 'keep']),
      scope: z.enum(PII_SCOPES),
      sessionId: id.optional(),
      dryRun: z.boolean().default(false),
    }),
    'Redact or keep one PII value in a session, the workspace or everywhere; dryRun counts the samples it covers',
  ),
  'pii.undoValueDecision': mutation(piiValueDecisionSchema)(
    z.strictObject({ id: z.number().int().min(1) }),
    'Undo a per-value PII decision',
  ),
  'pii.valueDecisions': query(z.array(piiValueDecisionSchema))(empty, 'Per-value PII decisions, newest first'),
  'curators.me': query(whoAmISchema)(empty, 'The acting curator'),
  'curators.setLocalName': mutation(curatorSchema)(
    z.strictObject({ name: z.string().trim().min(1).max(64) }),
    "Name the desktop app's curator (asked once)",
  ),
  'curators.list': query(z.array(curatorSchema))(empty, 'Curators of the workspace (never their tokens)'),
};
