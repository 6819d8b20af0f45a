// Importers (plugin logs, OpenClaw transcripts, eval sets, daily notes) and what they make readable:
// eval-model comparisons and daily notes. Each output is a zod schema with its TS type inferred from it.
import { z } from 'zod';
import { empty, job, limit, query } from './define';

export const importSkipSchema = z.object({ file: z.string(), line: z.number(), reason: z.string() });
export type ImportSkip = z.infer<typeof importSkipSchema>;
export const IMPORT_SOURCES = ['reflection-logs', 'openclaw', 'evals', 'daily-notes'] as const;
export type ImporterKind = (typeof IMPORT_SOURCES)[number];
export const importedFileSchema = z.object({
  path: z.string(),
  /** Byte offset the run started reading at (0 for a first import). */
  fromOffset: z.number(),
  bytesRead: z.number(),
  linesRead: z.number(),
  /** The file no longer matched its cursor (truncated or replaced) and was read again from the start. */
  restarted: z.boolean(),
});
export type ImportedFile = z.infer<typeof importedFileSchema>;
/** What an import did: the job's result, the CLI's `--json`, and the row stored in import_runs. */
export const importReportSchema = z.object({
  importer: z.enum(IMPORT_SOURCES),
  /** The file or folder that was read. */
  source: z.string(),
  startedAt: z.number(),
  finishedAt: z.number(),
  elapsedMs: z.number(),
  files: z.array(importedFileSchema),
  /** Rows added, per table. */
  inserted: z.record(z.string(), z.number()),
  /** Rows that were already there (a re-import) and were left as they are. */
  alreadyPresent: z.number(),
  /** Lines that were read and understood. */
  linesUnderstood: z.number(),
  /** Lines read but unusable, with file:line and reason (capped; see skippedCount). */
  skipped: z.array(importSkipSchema),
  skippedCount: z.number(),
  /** Unterminated last lines left for the next run (the file may still be growing). */
  pending: z.array(importSkipSchema),
  /** Things understood on purpose but not imported (mirror replies, failed attempts, ...), by kind. */
  ignored: z.record(z.string(), z.number()),
  /** Notes for the curator (missing optional inputs, open turns waiting for their reply, ...). */
  notes: z.array(z.string()),
  status: z.enum(['ok', 'partial', 'nothing_new', 'failed']),
  summary: z.string(),
});
export type ImportReport = z.infer<typeof importReportSchema>;

export const evalModelScoreSchema = z.object({
  modelId: z.string(),
  modelLabel: z.string().nullable(),
  runId: z.string(),
  runAt: z.number(),
  total: z.number(),
  passed: z.number(),
  /** Passed among the scenarios every model of the suite ran: the fair comparison. */
  commonPassed: z.number(),
  errors: z.record(z.string(), z.number()),
});
export type EvalModelScore = z.infer<typeof evalModelScoreSchema>;
export const evalSuiteComparisonSchema = z.object({
  suite: z.string(),
  commonScenarios: z.number(),
  models: z.array(evalModelScoreSchema),
  /** Scenario by scenario: model id -> passed; hardest first. */
  scenarios: z.array(z.object({ scenarioId: z.string(), results: z.record(z.string(), z.boolean()) })),
});
export type EvalSuiteComparison = z.infer<typeof evalSuiteComparisonSchema>;

export const dailyNoteSchema = z.object({
  /** YYYY-MM-DD */
  date: z.string(),
  path: z.string(),
  content: z.string(),
  updatedAt: z.number(),
});
export type DailyNote = z.infer<typeof dailyNoteSchema>;
export const dailyNoteHitSchema = z.object({
  date: z.string(),
  path: z.string(),
  snippet: z.string(),
  matches: z.array(z.object({ start: z.number(), end: z.number() })),
});
export type DailyNoteHit = z.infer<typeof dailyNoteHitSchema>;

const importPath = z.strictObject({ path: z.string().min(1).max(4096) });
const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD');

export const importContracts = {
  'import.dailyNotes': job(importReportSchema)(
    importPath,
    "Import OpenClaw's daily memory notes (memory/YYYY-MM-DD.md) as read-only documents (job)",
  ),
  'stats.evalModels': query(z.array(evalSuiteComparisonSchema))(
    empty,
    'Per-model pass rates of imported eval runs, compared on the same scenarios',
  ),
  'notes.list': query(z.array(dailyNoteSchema))(
    z.strictObject({ from: isoDay, to: isoDay }),
    'Daily memory notes of a day range (at most 62 days), oldest first',
  ),
  'notes.search': query(z.array(dailyNoteHitSchema))(
    z.strictObject({ text: z.string().trim().min(1, 'search text is required').max(500), limit: limit(200, 50) }),
    'Search the daily memory notes (Chinese too), newest first',
  ),
  'import.reflectionLogs': job(importReportSchema)(importPath, 'Import the plugin logs and write-guardian audit log (job)'),
  'import.openclaw': job(importReportSchema)(importPath, 'Import OpenClaw session transcripts (job)'),
  'import.evals': job(importReportSchema)(importPath, 'Import the plugin eval sets as gold samples (job)'),
};
