// Main's own long work, outside the API: the daily retention prune (startRetentionSchedule) and the
// desktop menu's backup. Both run in a job worker as the API's retention.prune and backup.create do,
// so a prune or a backup of a large database never holds main's thread: IPC, the web server and
// live capture keep answering meanwhile.
import { nowOf, type ServiceContext } from '../../core/context';
import { withoutAutoCheckpoint } from '../../core/db/bulk';
import { writeGateBuffer } from '../../core/db/writeGate';
import { backupDatabase, type BackupOptions, type DatabaseCopy } from '../../core/lifecycle/backup';
import { pruneOldData, type PruneResult } from '../../core/lifecycle/retention';
import type { ScheduledPrune } from '../../core/lifecycle/schedule';
import type { BackupResult } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import type { BackupCopyInput, ScheduledPruneInput, WorkerJobData } from './protocol';
import { jobsInProcess, runInWorker } from './runner';

/** The worker opens the file of ctx's own connection: the workspace the caller holds, even if the session moved on. */
function workerData(ctx: ServiceContext, channel: WorkerJobData['channel'], input: unknown): WorkerJobData {
  return { channel, input, workspaceDir: ctx.workspaceDir, dbFile: ctx.db.name, actor: ctx.actor, writeGate: writeGateBuffer() };
}

/**
 * The retention schedule's prune in a worker, at the schedule's time (its clock cannot cross). When
 * the schedule stops (the app closes), a prune not yet begun is dropped; one begun may finish within
 * `stopGraceMs`, or its worker is terminated and its one transaction rolled back.
 */
export function scheduledPruneInWorker(options: { stopGraceMs?: number } = {}): ScheduledPrune {
  return (ctx, prune) => {
    if (jobsInProcess()) return pruneOldData(ctx, prune);
    const data = workerData(ctx, 'retention.scheduled', { options: prune, at: nowOf(ctx) } satisfies ScheduledPruneInput);
    const run = () => runInWorker(data, { signal: ctx.signal }, options.stopGraceMs);
    return withoutAutoCheckpoint(ctx.db, run) as Promise<PruneResult>;
  };
}

/**
 * backupDatabase with its page copy in a worker: main checks the target (and whether it may replace
 * it, per options.overwrite) and records the backup, exactly as for backup.create.
 */
export function backupInWorker(ctx: ServiceContext, options: BackupOptions): Promise<BackupResult> {
  if (jobsInProcess()) return backupDatabase(ctx, options);
  return backupDatabase(ctx, options, async (output) => {
    // on main a closed connection refuses the copy; the worker's own would not notice
    if (!ctx.db.open) throw new AppError('Io', `backup to ${output} failed: The database connection is not open`);
    const copied = await runInWorker(workerData(ctx, 'backup.create', { output } satisfies BackupCopyInput), {});
    return copied as DatabaseCopy;
  });
}
