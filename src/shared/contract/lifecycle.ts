// Opt-out (exclusions and purge), retention, conversation archives and settings validation. Each
// output is a zod schema with its TS type inferred from it. Pure TS + zod.
import { z } from 'zod';
import { empty, epochMs, id, job, mutation, query } from './define';

export const EXCLUSION_KINDS = ['session', 'target', 'account'] as const;
export type ExclusionKind = (typeof EXCLUSION_KINDS)[number];
export const exclusionSchema = z.object({
  id: z.string(),
  kind: z.enum(EXCLUSION_KINDS),
  /** A session key, "<channel>:<target>", or an account id. */
  value: z.string(),
  reason: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.number(),
  /** Sessions it matches now (later sessions of a target or account are matched as they appear). */
  sessions: z.number(),
});
export type ExclusionDto = z.infer<typeof exclusionSchema>;
export const purgeOutcomeSchema = z.object({
  exclusion: exclusionSchema,
  sessionIds: z.array(z.string()),
  /** Rows removed (or, in a dry run, that would be removed) per table. */
  deleted: z.record(z.string(), z.number()),
  dryRun: z.boolean(),
});
export type PurgeOutcome = z.infer<typeof purgeOutcomeSchema>;

export const pruneKeptSchema = z.object({ table: z.string(), reason: z.string(), count: z.number() });
export type PruneKept = z.infer<typeof pruneKeptSchema>;
export const pruneOutcomeSchema = z.object({
  days: z.number(),
  /** Rows created before this instant are old. */
  cutoff: z.number(),
  dryRun: z.boolean(),
  /** Rows removed (or, in a dry run, that would be removed) per table. */
  deleted: z.record(z.string(), z.number()),
  /** Old rows that stay, and why (approved dataset sample, correction, rollback, ...). */
  kept: z.array(pruneKeptSchema),
  freedPages: z.number(),
  /** From a dry run: pass it with confirm to delete exactly what the preview listed. */
  previewToken: z.string(),
  /** Up to when a backup or conversation archive holds the data (null: none does). */
  safeCopyUntil: z.number().nullable(),
  /** The deletion reaches data no copy holds: a real run needs force. */
  needsForce: z.boolean(),
});
export type PruneOutcome = z.infer<typeof pruneOutcomeSchema>;

export const conversationExportResultSchema = z.object({ file: z.string(), turns: z.number(), bytes: z.number() });
export type ConversationExportResult = z.infer<typeof conversationExportResultSchema>;

export const settingsValidationSchema = z.object({
  /** No problem found: every value is used as given. */
  valid: z.boolean(),
  /** One line per ignored value, naming it. */
  problems: z.array(z.string()),
  /** The effective settings (defaults in place of ignored values). */
  values: z.record(z.string(), z.unknown()),
  /** What was validated: the stored workbench.json, or the object passed in. */
  source: z.enum(['file', 'input']),
  file: z.string(),
});
export type SettingsValidation = z.infer<typeof settingsValidationSchema>;

export const lifecycleContracts = {
  'exclusions.list': query(z.array(exclusionSchema))(empty, 'Excluded sessions, targets and accounts, with the sessions each matches'),
  'exclusions.add': mutation(exclusionSchema)(
    z.strictObject({
      kind: z.enum(EXCLUSION_KINDS),
      value: z.string().trim().min(1, 'the session, target or account to exclude is required').max(500),
      reason: z.string().trim().max(2000).optional(),
    }),
    'Exclude a session, a channel target ("<channel>:<target>") or an account from collection and every export',
  ),
  'exclusions.remove': mutation(exclusionSchema)(
    z.strictObject({ id }),
    'Lift an exclusion: its data (if not purged) is collected and exported again',
  ),
  'exclusions.purge': mutation(purgeOutcomeSchema)(
    z.strictObject({ id, dryRun: z.boolean().default(false), confirm: z.boolean().default(false) }),
    'Delete everything recorded for the excluded sessions (irreversible: needs confirm; dryRun gives exact counts)',
  ),
  'retention.prune': mutation(pruneOutcomeSchema)(
    z.strictObject({
      days: z.number().int('days: whole days only').min(7, 'days: at least 7').max(36_500).optional(),
      dryRun: z.boolean().default(false),
      confirm: z.boolean().default(false),
      previewToken: z.string().max(200).optional(),
      force: z.boolean().default(false),
    }),
    'Delete data older than N whole days (irreversible: dryRun first, then confirm with its previewToken; force for data no backup holds)',
  ),
  'conversations.export': job(conversationExportResultSchema)(
    z.strictObject({ since: epochMs.optional(), until: epochMs.optional(), overwrite: z.boolean().default(false) }),
    'Write the turns of a time range, with their decisions and writes, to a JSONL archive (job)',
  ),
  'settings.validate': query(settingsValidationSchema)(
    z.strictObject({ settings: z.record(z.string(), z.unknown()).optional() }),
    'Check workbench.json (or a settings object, without saving) value by value; each problem names the value',
  ),
};
