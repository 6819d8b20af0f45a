// The write_guardian calls (audits, diffs, file history, rollback, retry, corrections): input and output schemas and
// the TS types inferred from them. The services in src/core/guardian return these (rollback and retry through a
// small mapping in the handler), and the registry checks answers against the schemas outside production.
// Plain JSON data; times are epoch ms.
import { z } from 'zod';
import { AUDIT_SOURCES, AUDIT_STATUSES, MEMORY_FILES } from '../domain';
import { cursor, empty, epochMs, id, limit, mutation, pageOf, query } from './define';
import { auditRowSchema, gateDecisionRowSchema, turnSchema } from './records';

const memoryFile = z.enum(MEMORY_FILES);
const lineChangesSchema = z.object({ added: z.number(), removed: z.number(), modified: z.number() });
const rollbackMode = z.enum(['restore', 'reverse_patch', 'force']);

export const rollbackDtoSchema = z.object({
  id: z.string(),
  auditId: z.string(),
  rolledBackAt: z.number(),
  rolledBackBy: z.string(),
  reason: z.string(),
  restoredSnapshotId: z.string().nullable(),
  previousStatus: z.string(),
  mode: rollbackMode,
  rollbackAuditId: z.string().nullable(),
});
export type RollbackDto = z.infer<typeof rollbackDtoSchema>;

export const correctionSchema = z.object({
  id: z.string(),
  auditId: z.string(),
  originalStatus: z.string(),
  originalCandidateFact: z.string().nullable(),
  originalTargetFile: z.string().nullable(),
  correctedStatus: z.enum(['written', 'refused']),
  correctedCandidateFact: z.string().nullable(),
  correctedTargetFile: memoryFile.nullable(),
  correctionReason: z.string(),
  applyToFuture: z.boolean(),
  correctionPattern: z.string().nullable(),
  correctedBy: z.string(),
  correctedAt: z.number(),
  retryAuditId: z.string().nullable(),
});
export type CorrectionDto = z.infer<typeof correctionSchema>;

export const auditDetailSchema = z.object({
  audit: auditRowSchema.extend({
    diff: z.string().nullable(),
    llmModel: z.string().nullable(),
    latencyMs: z.number().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
  }),
  decision: gateDecisionRowSchema.nullable(),
  turn: turnSchema.nullable(),
  /** The rollback that undid this audit, if any. */
  rollback: rollbackDtoSchema.nullable(),
  /** When this audit is itself a rollback's write: the rollback it records. */
  recordsRollback: rollbackDtoSchema.nullable(),
  related: auditRowSchema.nullable(),
  /** Later workbench writes that point back at this one (retries, rollbacks). */
  followUps: z.array(auditRowSchema),
  corrections: z.array(correctionSchema),
  /** Where the file stands now relative to this write. */
  file: z.object({ name: memoryFile, exists: z.boolean(), matchesAfter: z.boolean().nullable() }),
});
export type AuditDetail = z.infer<typeof auditDetailSchema>;

export const auditDiffSchema = z.object({
  auditId: z.string(),
  fileName: memoryFile,
  /** Content before the write; null when the write created the file (or it is unknown). */
  before: z.string().nullable(),
  /** Content after the write; null when the write deleted the file (or it is unknown). */
  after: z.string().nullable(),
  /** Unified diff text; null when the write's content was not recorded. */
  diff: z.string().nullable(),
  lineChanges: lineChangesSchema.nullable(),
});
export type AuditDiff = z.infer<typeof auditDiffSchema>;

export const fileVersionSchema = z.object({
  auditId: z.string(),
  fileName: memoryFile,
  status: z.enum(AUDIT_STATUSES),
  source: z.enum(AUDIT_SOURCES),
  /** Who made the change: the plugin (with model and session), an external edit, or the curator who rolled back or retried. */
  actor: z.string(),
  /** Why: the fact written, or the rollback or retry reason. */
  reason: z.string().nullable(),
  sessionId: z.string().nullable(),
  candidateFact: z.string().nullable(),
  relatedAuditId: z.string().nullable(),
  /** The snapshot of the file after this write. */
  snapshotId: z.string().nullable(),
  contentHash: z.string().nullable(),
  lineChanges: lineChangesSchema.nullable(),
  createdAt: z.number(),
  /** Set when this version was later rolled back. */
  rolledBack: z.object({ at: z.number(), by: z.string(), reason: z.string(), rollbackAuditId: z.string().nullable() }).nullable(),
});
export type FileVersion = z.infer<typeof fileVersionSchema>;

export const rollbackConflictSchema = z.object({
  message: z.string(),
  /** The file as it is on disk now. */
  current: z.string().nullable(),
  /** Hunks of this write's change that no longer apply, as unified diff text. */
  conflictingDiff: z.string().optional(),
});
export type RollbackConflict = z.infer<typeof rollbackConflictSchema>;
/** preview: a dry run that would apply; rolled_back: applied; conflict: later changes overlap, nothing written. */
export const ROLLBACK_STATUSES = ['preview', 'rolled_back', 'conflict'] as const;
export type RollbackStatus = (typeof ROLLBACK_STATUSES)[number];

const rollbackOutcomeFields = {
  auditId: z.string(),
  dryRun: z.boolean(),
  /** restore: file matched the after-snapshot; reverse_patch: later writes kept; force: restored anyway. */
  mode: rollbackMode.nullable(),
  fileName: memoryFile,
  /** The file as it reads (dry run: would read) after the rollback; null = the file is deleted. */
  resultContent: z.string().nullable(),
  /** Diff from the current file to resultContent. */
  diff: z.string().nullable(),
  conflict: rollbackConflictSchema.nullable(),
  rollbackId: z.string().nullable(),
  rollbackAuditId: z.string().nullable(),
};
/** A conflict is a result variant, not an error: read `status`, then `conflict` for what overlaps. */
export const rollbackOutcomeSchema = z.object({ status: z.enum(ROLLBACK_STATUSES), ...rollbackOutcomeFields });
export type RollbackOutcome = z.infer<typeof rollbackOutcomeSchema>;

/** One write of a session rollback: what happened (or would) to it, with what the curator needs to choose. */
export const sessionRollbackItemSchema = z.object({
  /** skipped: left alone on the curator's choice; refused: not undoable (already rolled back, unknown content). */
  status: z.enum([...ROLLBACK_STATUSES, 'skipped', 'refused']),
  ...rollbackOutcomeFields,
  createdAt: z.number().optional(),
  candidateFact: z.string().nullable().optional(),
  /** Why it was refused when it is not a content conflict (already rolled back, unknown content). */
  error: z.string().nullable().optional(),
});
export type SessionRollbackItemDto = z.infer<typeof sessionRollbackItemSchema>;
export const sessionRollbackOutcomeSchema = z.object({
  sessionId: z.string(),
  dryRun: z.boolean(),
  /** Newest first, as applied. */
  results: z.array(sessionRollbackItemSchema),
  rolledBack: z.number(),
  refused: z.number(),
});
export type SessionRollbackOutcome = z.infer<typeof sessionRollbackOutcomeSchema>;

export const retryOutcomeSchema = z.object({
  originalAuditId: z.string(),
  dryRun: z.boolean(),
  targetFile: memoryFile,
  /** The full file content the retry writes (dry run: would write). The UI opens it in an editor. */
  content: z.string(),
  /** Current content of the target file, for a diff view. */
  currentContent: z.string().nullable(),
  diff: z.string().nullable(),
  /** The new audit recorded for the retry; null on a dry run. */
  auditId: z.string().nullable(),
});
export type RetryOutcome = z.infer<typeof retryOutcomeSchema>;

export const auditStatusCountSchema = z.object({ status: z.enum(AUDIT_STATUSES), count: z.number() });
export type AuditStatusCount = z.infer<typeof auditStatusCountSchema>;

// ---- the calls ----
const timeRange = { since: epochMs.optional(), until: epochMs.optional() };
const text = (max: number) => z.string().max(max);
const reason = z.string().trim().min(1, 'a reason is required').max(2000);

export const guardianContracts = {
  'guardian.list': query(pageOf(auditRowSchema))(
    z.strictObject({
      sessionId: id.optional(),
      file: memoryFile.optional(),
      status: z.enum(AUDIT_STATUSES).optional(),
      source: z.enum(AUDIT_SOURCES).optional(),
      limit: limit(),
      cursor,
      ...timeRange,
    }),
    'write_guardian audits, newest first',
  ),
  'guardian.show': query(auditDetailSchema)(z.strictObject({ id }), 'An audit with its decision, turn, rollback and corrections'),
  'guardian.stats': query(z.array(auditStatusCountSchema))(empty, 'How many writes carry each status, all time'),
  'guardian.diff': query(auditDiffSchema)(z.strictObject({ id }), 'Before/after content and unified diff of a write'),
  'guardian.history': query(pageOf(fileVersionSchema))(
    z.strictObject({ file: memoryFile, limit: limit(), cursor }),
    'Every version of one memory file, newest first',
  ),
  'guardian.rollback': mutation(rollbackOutcomeSchema)(
    z.strictObject({ auditId: id, reason, dryRun: z.boolean().default(false), force: z.boolean().default(false) }),
    'Undo one write (reverse patch when the file changed since; refuses a conflict unless force)',
  ),
  'guardian.rollbackSession': mutation(sessionRollbackOutcomeSchema)(
    z.strictObject({
      sessionId: id,
      reason,
      dryRun: z.boolean().default(false),
      force: z.boolean().default(false),
      ...timeRange,
      /** Writes to leave as they are, and writes to restore even over later changes. */
      skip: z.array(id).max(10_000).default([]),
      forceIds: z.array(id).max(10_000).default([]),
    }),
    "Undo a session's writes, newest first (per write: skip or force)",
  ),
  'guardian.retry': mutation(retryOutcomeSchema)(
    z.strictObject({
      auditId: id,
      fact: text(20_000).optional(),
      file: memoryFile.optional(),
      /** Full file content the curator edited; replaces the generated content. */
      content: text(5_000_000).optional(),
      dryRun: z.boolean().default(false),
      /** Why the write is retried: required unless dryRun (kept in the retry's audit, as a rollback's reason is). */
      reason: z.string().trim().max(2000).optional(),
    }),
    'Re-apply a write with a corrected fact, file or content (dryRun: preview the content; a real retry needs a reason)',
  ),
  'guardian.correct': mutation(correctionSchema)(
    z.strictObject({
      auditId: id,
      status: z.enum(['written', 'refused']),
      fact: text(20_000).optional(),
      file: memoryFile.optional(),
      reason,
      applyToFuture: z.boolean().default(false),
      pattern: z.string().max(2000).optional(),
    }),
    'Record a behaviour correction for a write',
  ),
};
