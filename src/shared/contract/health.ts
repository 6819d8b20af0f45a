// Memory health: blame, the findings queue (contradictions, duplicates, secrets), secret removal,
// erasure across history and hash-chain verification. Pure TS + zod.
import { z } from 'zod';
import { MEMORY_FILES } from '../domain';
import { empty, id, mutation, query } from './define';

export const blameWriteSchema = z.object({
  seq: z.number(),
  auditId: z.string(),
  source: z.string().nullable(),
  status: z.string().nullable(),
  decisionId: z.string().nullable(),
  decision: z.string().nullable(),
  turnId: z.string().nullable(),
  sessionId: z.string().nullable(),
  candidateFact: z.string().nullable(),
  reason: z.string().nullable(),
  createdAt: z.number(),
});
export type BlameWrite = z.infer<typeof blameWriteSchema>;
export const blameLineSchema = z.object({
  line: z.number(),
  text: z.string(),
  write: blameWriteSchema.nullable(),
  history: z.array(z.object({ write: blameWriteSchema, text: z.string() })),
});
export type BlameLine = z.infer<typeof blameLineSchema>;
export const blameSchema = z.object({
  fileName: z.string(),
  versions: z.number(),
  headSeq: z.number().nullable(),
  diskDiffers: z.boolean(),
  lines: z.array(blameLineSchema),
});
export type BlameDto = z.infer<typeof blameSchema>;
export const findingLineSchema = z.object({
  fileName: z.string(),
  line: z.number(),
  text: z.string(),
  values: z.array(z.string()).optional(),
});
export type FindingLineDto = z.infer<typeof findingLineSchema>;
export const FINDING_KINDS = ['contradiction', 'duplicate', 'secret'] as const;
export const FINDING_STATUSES = ['open', 'resolved', 'merged', 'dismissed'] as const;
export const findingSchema = z.object({
  id: z.string(),
  kind: z.enum(FINDING_KINDS),
  attribute: z.string().nullable(),
  status: z.enum(FINDING_STATUSES),
  detail: z.object({
    lines: z.array(findingLineSchema),
    piiKind: z.string().optional(),
    secret: z.boolean().optional(),
    secondOpinion: z
      .union([z.object({ verdict: z.string(), reason: z.string(), model: z.string() }), z.object({ error: z.string() })])
      .optional(),
  }),
  resolution: z.record(z.string(), z.unknown()).nullable(),
  resolvedBy: z.string().nullable(),
  resolvedAt: z.number().nullable(),
  createdAt: z.number(),
});
export type FindingDto = z.infer<typeof findingSchema>;
export const healthScanSchema = z.object({ found: z.number(), added: z.number(), closed: z.number(), open: z.array(findingSchema) });
export type HealthScanDto = z.infer<typeof healthScanSchema>;
export const fileChangeSchema = z.object({ fileName: z.string(), retryAuditId: z.string(), correctionIds: z.array(z.string()) });
export type FileChangeDto = z.infer<typeof fileChangeSchema>;
export const writeFlagSchema = z.object({ auditId: z.string(), kinds: z.array(z.string()), count: z.number() });
export type WriteFlagDto = z.infer<typeof writeFlagSchema>;
export const healthSummarySchema = z.object({
  openFindings: z.object({ contradiction: z.number(), duplicate: z.number(), secret: z.number() }),
  flaggedWrites: z.number(),
  flaggedSecretWrites: z.number(),
  chain: z.object({ ok: z.boolean(), breaks: z.number(), versions: z.number(), rechains: z.number(), checkedAt: z.number() }),
});
export type HealthSummaryDto = z.infer<typeof healthSummarySchema>;
export const verifySchema = z.object({
  ok: z.boolean(),
  checkedAt: z.number(),
  files: z.array(z.object({ fileName: z.string(), versions: z.number(), headLink: z.string().nullable(), breaks: z.number() })),
  breaks: z.array(
    z.object({ kind: z.string(), fileName: z.string(), seq: z.number().nullable(), auditId: z.string().nullable(), message: z.string() }),
  ),
  chained: z.number(),
  events: z.array(
    z.object({ fileName: z.string(), fromSeq: z.number(), reason: z.string(), erasureId: z.string().nullable(), createdAt: z.number() }),
  ),
});
export type VerifyDto = z.infer<typeof verifySchema>;
export const eraseSchema = z.object({
  dryRun: z.boolean(),
  erasureId: z.string().nullable(),
  places: z.array(
    z.object({
      place: z.string(),
      kind: z.enum(['database', 'memory_file', 'archive', 'export']),
      count: z.number(),
      action: z.enum(['rewrite', 'delete', 'keep']),
    }),
  ),
  blocked: z.array(z.string()),
  rechained: z.array(z.string()),
  warnings: z.array(z.string()),
});
export type EraseDto = z.infer<typeof eraseSchema>;

const memoryFile = z.enum(MEMORY_FILES);
const findingStatus = z.enum(FINDING_STATUSES);

export const healthContracts = {
  'health.blame': query(blameSchema)(
    z.strictObject({ file: memoryFile, line: z.number().int().min(1).optional(), seq: z.number().int().min(1).optional() }),
    'Which recorded write last produced each line of a memory file, with its decision, turn and earlier history',
  ),
  'health.scan': mutation(healthScanSchema)(
    empty,
    'Scan the current memory files for contradictions, duplicates and secrets; update the findings queue',
  ),
  'health.findings': query(z.array(findingSchema))(
    z.strictObject({ status: findingStatus.optional(), kind: z.enum(FINDING_KINDS).optional() }),
    'The findings queue',
  ),
  'health.resolve': mutation(z.object({ finding: findingSchema, changes: z.array(fileChangeSchema) }))(
    z.strictObject({
      id,
      action: z.enum(['keep', 'merge', 'dismiss', 'remove']),
      keep: z.number().int().min(0).optional(),
      text: z.string().trim().min(1).max(5000).optional(),
      reason: z.string().trim().max(2000).optional(),
    }),
    'Resolve a finding: keep one line, merge, remove a secret (curator write + correction), or dismiss',
  ),
  'health.removeSecrets': mutation(fileChangeSchema)(
    z.strictObject({ auditId: id }),
    'Remove the secrets and personal data a write stored from its memory file (curator write + correction)',
  ),
  'health.writeFlags': query(z.array(writeFlagSchema))(
    z.strictObject({ auditIds: z.array(id).max(1000) }),
    'Which of these writes stored secrets or personal data (kinds only, never values)',
  ),
  'health.summary': query(healthSummarySchema)(empty, 'Open findings, flagged writes and the hash chain state, for Stats'),
  'health.verify': query(verifySchema)(empty, 'Check the hash chain of every memory file version and the files on disk'),
  'health.erase': mutation(eraseSchema)(
    z.strictObject({
      value: z.string().min(5, 'the value to erase must be at least 5 characters').max(10_000),
      dryRun: z.boolean().default(true),
      confirm: z.boolean().default(false),
      deleteExports: z.boolean().default(false),
    }),
    'Erase a value everywhere it was stored (dryRun lists the places first; erasing needs confirm)',
  ),
  'health.secondOpinion': mutation(z.array(findingSchema))(
    empty,
    'Ask the configured OpenAI-compatible endpoint about the open contradiction and duplicate findings',
  ),
};
