// Messages between the main process and a job worker (src/api/jobs/worker.ts). A long job runs in a
// worker thread with its own database connection, so main's event loop (IPC, the web server, live
// capture) keeps answering while a 100,000-decision collection or a large import runs on the other core.
import type { ErrorBody } from '../../shared/errors';
import type { PruneOptions } from '../../core/lifecycle/retention';

/** Job channels whose handler runs in a worker. Each handler needs only its ctx and the workspace folder. */
export const WORKER_JOB_CHANNELS = [
  'dataset.collect',
  'dataset.export',
  'import.openclaw',
  'import.reflectionLogs',
  'import.evals',
  'import.dailyNotes',
  'conversations.export',
] as const;
export type WorkerJobChannel = (typeof WORKER_JOB_CHANNELS)[number];

/**
 * Calls (mutations, not jobs) whose heavy work runs in a worker while main's handler awaits it: the
 * caller sees the same call with the same answer. retention.prune and exclusions.purge run whole there
 * (the CLI's `exclude purge` uses the same worker work); backup.create copies and checks the pages
 * there, and main checks the target and records the backup (as for the CLI's `backup` and the menu's).
 */
export const WORKER_CALL_CHANNELS = ['retention.prune', 'backup.create', 'exclusions.purge'] as const;
export type WorkerCallChannel = (typeof WORKER_CALL_CHANNELS)[number];

/**
 * Work main's own callers hand to a worker, outside the API: the daily retention schedule's prune and
 * the archive schedule's run (startRetentionSchedule, startArchiveSchedule, in the app and in the CLI's
 * `watch`), each with the options its schedule chose and the time of the run on the schedule's clock;
 * the CLI's one-off `prune`, which answers pruneOldData's own PruneResult; and, when a workspace opens,
 * building the indexes a collection set aside and did not build again.
 */
export type WorkerInternalChannel = 'retention.scheduled' | 'archive.scheduled' | 'retention.run' | 'indexes.restore';

/** An archive run as the schedule asked for it, at its clock's time. */
export interface ScheduledArchiveInput {
  retentionDays: number;
  at: number;
}

/** A prune as its caller asked for it; `at` is the caller's time, so the cutoff is the one main would use. */
export interface PruneRunInput {
  options: PruneOptions;
  at: number;
}

/** What a worker is asked to copy for backup.create: a target main has checked already. */
export interface BackupCopyInput {
  output: string;
}

export interface WorkerJobData {
  channel: WorkerJobChannel | WorkerCallChannel | WorkerInternalChannel;
  input: unknown;
  workspaceDir: string;
  dbFile: string;
  actor?: string;
  /** main's write gate (src/core/db/writeGate.ts): the job yields while main has a writer waiting */
  writeGate: SharedArrayBuffer;
}

export type ToJobWorker = { type: 'cancel' };

export type FromJobWorker =
  | { type: 'progress'; done: number; total: number | null; label?: string }
  /** ServiceContext.finishing: the job must not be stopped outright from now on. */
  | { type: 'finishing' }
  | { type: 'done'; result: unknown }
  | { type: 'failed'; error: ErrorBody };
