// Main's own long work, outside the API: the daily retention prune (startRetentionSchedule), the
// scheduled conversation archive, the desktop menu's backup and the CLI's prune, purge and backup. They
// run in a job worker as the API's retention.prune, exclusions.purge and backup.create do, so a prune, a
// first archive of the whole history or a backup of a large database never holds main's thread: IPC,
// the web server and live capture (the app's, or `reflection watch`'s) keep answering meanwhile.
import { nowOf, type ServiceContext } from '../../core/context';
import { hasDeferredIndexes, restoreDeferredIndexes, withoutAutoCheckpoint } from '../../core/db/bulk';
import { writeGateBuffer } from '../../core/db/writeGate';
import { backupDatabase, type BackupOptions, type DatabaseCopy } from '../../core/lifecycle/backup';
import { pruneOldData, type PruneOptions, type PruneResult } from '../../core/lifecycle/retention';
import { runScheduledArchive, type ScheduledArchiveResult } from '../../core/lifecycle/archive';
import type { ScheduledArchive, ScheduledPrune } from '../../core/lifecycle/schedule';
import { purgeExclusion } from '../../core/lifecycle/exclusions';
import type { BackupResult, PurgeOutcome } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import type { BackupCopyInput, PruneRunInput, ScheduledArchiveInput, WorkerJobData } from './protocol';
import { jobsInProcess, runInWorker } from './runner';

/** The worker opens the file of ctx's own connection: the workspace the caller holds, even if the session moved on. */
function workerData(ctx: ServiceContext, channel: WorkerJobData['channel'], input: unknown): WorkerJobData {
  return { channel, input, workspaceDir: ctx.workspaceDir, dbFile: ctx.db.name, actor: ctx.actor, writeGate: writeGateBuffer() };
}

/**
 * The retention schedule's prune in a worker, at the schedule's time (its clock cannot cross). When
 * the schedule stops (the app or `watch` closes), a prune not yet begun is dropped; one begun may
 * finish within `stopGraceMs`, or its worker is terminated and its one transaction rolled back.
 */
export function scheduledPruneInWorker(options: { stopGraceMs?: number } = {}): ScheduledPrune {
  return (ctx, prune) => (jobsInProcess() ? pruneOldData(ctx, prune) : pruneThere(ctx, 'retention.scheduled', prune, options.stopGraceMs));
}

/**
 * A one-off prune (the CLI's `prune`, its preview and its deletion) in a worker: the PruneResult main's
 * pruneOldData gives, errors with their kind and message. Quitting (Ctrl-C) ends the process and its
 * worker with it, and SQLite undoes the worker's open transaction.
 */
export async function pruneInWorker(ctx: ServiceContext, options: PruneOptions): Promise<PruneResult> {
  if (jobsInProcess()) return pruneOldData(ctx, options);
  return pruneThere(ctx, 'retention.run', options);
}

function pruneThere(ctx: ServiceContext, channel: 'retention.scheduled' | 'retention.run', options: PruneOptions, graceMs?: number) {
  const data = workerData(ctx, channel, { options, at: nowOf(ctx) } satisfies PruneRunInput);
  const run = () => runInWorker(data, { signal: ctx.signal }, graceMs);
  return withoutAutoCheckpoint(ctx.db, run) as Promise<PruneResult>;
}

/** The CLI's `exclude purge` in a worker, as the exclusions.purge call runs there: the same PurgeOutcome. */
export async function purgeInWorker(
  ctx: ServiceContext,
  id: string,
  options: { confirm?: boolean; dryRun?: boolean },
): Promise<PurgeOutcome> {
  if (jobsInProcess()) return purgeExclusion(ctx, id, options);
  const data = workerData(ctx, 'exclusions.purge', { id, dryRun: options.dryRun ?? false, confirm: options.confirm ?? false });
  return (await withoutAutoCheckpoint(ctx.db, () => runInWorker(data, {}))) as PurgeOutcome;
}

/**
 * The archive schedule's run in a worker, at the schedule's time. Its stop does not cut it short, as
 * on main: the run appends to the day files before it moves its cursor, so a run stopped halfway
 * would append the same turns again next time.
 */
export const scheduledArchiveInWorker: ScheduledArchive = async (ctx, options) => {
  if (jobsInProcess()) return runScheduledArchive(ctx, options);
  const input: ScheduledArchiveInput = { retentionDays: options.retentionDays, at: nowOf(ctx) };
  const run = () => runInWorker(workerData(ctx, 'archive.scheduled', input), {});
  return (await withoutAutoCheckpoint(ctx.db, run)) as ScheduledArchiveResult;
};

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

/**
 * Builds the indexes a collection set aside and did not build again (the app quit or crashed during its
 * rebuild), in a worker: at a million decisions that is a minute of table scans, which on main's thread
 * would freeze the window as the workspace opens. Main's writes wait for each index meanwhile; the
 * worker is not stopped when the workspace closes (its connection is its own), and a quit leaves what
 * it did not build recorded for the next open or collection.
 */
export async function restoreIndexesInWorker(ctx: ServiceContext): Promise<void> {
  if (!hasDeferredIndexes(ctx.db)) return;
  if (jobsInProcess()) return restoreDeferredIndexes(ctx.db);
  await withoutAutoCheckpoint(ctx.db, () => runInWorker(workerData(ctx, 'indexes.restore', {}), {}));
}
