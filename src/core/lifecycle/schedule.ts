import { Cron } from 'croner';
import { AppError } from '../../shared/errors';
import type { ServiceContext } from '../context';
import { runScheduledArchive, type ScheduledArchiveResult } from './archive';
import { pruneOldData, type PruneOptions, type PruneResult } from './retention';
import { getState, setState, systemClock, type Clock } from './state';

export const DEFAULT_ARCHIVE_SCHEDULE = '0 0 * * *';
const LAST_RUN_KEY = 'archive.lastRunAt';

export interface ArchiveScheduleOptions {
  /** Cron expression (croner syntax, evaluated in UTC); default daily at midnight. */
  schedule?: string;
  retentionDays: number;
  clock?: Clock;
  onRun?: (result: ScheduledArchiveResult, at: number) => void;
  onError?: (error: unknown) => void;
  /** How a run writes the archive (the app: in a job worker); default runScheduledArchive right here. */
  archive?: ScheduledArchive;
}

/** Runs one scheduled archive; ctx carries the schedule's clock. */
export type ScheduledArchive = (ctx: ServiceContext, options: { retentionDays: number }) => Promise<ScheduledArchiveResult>;

export interface ArchiveSchedule {
  stop(): void;
  /** When the next run is due (ms), or null once stopped. */
  nextRunAt(): number | null;
  /** Resolves when the run in progress (if any) has finished. */
  idle(): Promise<void>;
}

/**
 * Runs the conversation archive on a cron schedule. croner parses the expression and computes the
 * next run; the timer comes from the injected clock, so tests drive days of schedule without
 * waiting. A run missed while the workbench was closed is made up once at start.
 */
export function startArchiveSchedule(ctx: ServiceContext, options: ArchiveScheduleOptions): ArchiveSchedule {
  const clock = options.clock ?? systemClock;
  let cron: Cron;
  try {
    cron = new Cron(options.schedule ?? DEFAULT_ARCHIVE_SCHEDULE, { paused: true, timezone: 'UTC' });
  } catch (e) {
    throw new AppError('Invalid', `storage.jsonlExport.schedule: not a valid cron expression (${(e as Error).message})`);
  }
  const runCtx: ServiceContext = { ...ctx, now: () => clock.now() };
  const archive = options.archive ?? runScheduledArchive;
  let timer: unknown;
  let next: number | null = null;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();

  const run = (at: number) => {
    running = running.then(async () => {
      try {
        const result = await archive(runCtx, { retentionDays: options.retentionDays });
        setState(ctx.db, LAST_RUN_KEY, at, at);
        options.onRun?.(result, at);
      } catch (e) {
        options.onError?.(e);
      }
    });
  };

  const arm = () => {
    if (stopped) return;
    const nextDate = cron.nextRun(new Date(clock.now()));
    if (!nextDate) return;
    next = nextDate.getTime();
    timer = clock.setTimer(() => {
      const due = next!;
      run(due);
      arm();
    }, next - clock.now());
  };

  // Catch up: was a scheduled time passed since the last run (or since the first start)?
  const lastRun = getState<number>(ctx.db, LAST_RUN_KEY);
  if (lastRun !== undefined) {
    const dueSinceLast = cron.nextRun(new Date(lastRun));
    if (dueSinceLast && dueSinceLast.getTime() <= clock.now()) run(clock.now());
  }
  arm();

  return {
    stop() {
      stopped = true;
      next = null;
      if (timer !== undefined) clock.clearTimer(timer);
      cron.stop();
    },
    nextRunAt: () => next,
    idle: () => running,
  };
}

/** Starts the archive schedule when the workspace settings enable it (storage.jsonlExport.enabled); null otherwise. */
export function startConfiguredArchive(
  ctx: ServiceContext,
  settings: { storage: { jsonlExport: { enabled: boolean; schedule?: string; retentionDays: number } } },
  options: Omit<ArchiveScheduleOptions, 'schedule' | 'retentionDays'> = {},
): ArchiveSchedule | null {
  const { enabled, schedule, retentionDays } = settings.storage.jsonlExport;
  if (!enabled) return null;
  return startArchiveSchedule(ctx, { ...options, schedule, retentionDays });
}

export interface RetentionSchedule {
  stop(): void;
  idle(): Promise<void>;
}

/**
 * Runs one scheduled prune. ctx carries the schedule's clock and a signal aborted by stop(). The app
 * passes one that runs it in a job worker (src/api/jobs/internal.ts), so a prune of seconds never
 * holds main's thread; the default runs pruneOldData right here.
 */
export type ScheduledPrune = (ctx: ServiceContext, options: PruneOptions) => PruneResult | Promise<PruneResult>;

/**
 * Applies storage.retentionDays while the workbench runs: once shortly after start, then daily.
 * Pruning is idempotent, so running it on every start as well as daily costs little. The setting is
 * its confirmation; it still deletes only data a backup or conversation archive already holds.
 */
export function startRetentionSchedule(
  ctx: ServiceContext,
  options: {
    days: number;
    clock?: Clock;
    firstDelayMs?: number;
    intervalMs?: number;
    onRun?: (r: PruneResult) => void;
    onError?: (e: unknown) => void;
    prune?: ScheduledPrune;
  },
): RetentionSchedule {
  const clock = options.clock ?? systemClock;
  const interval = options.intervalMs ?? 24 * 60 * 60 * 1000;
  const prune = options.prune ?? pruneOldData;
  // stop() tells a prune still running (in a worker) that the app is closing
  const stopping = new AbortController();
  let timer: unknown;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    running = running.then(async () => {
      try {
        const runCtx: ServiceContext = { ...ctx, now: () => clock.now(), signal: stopping.signal };
        options.onRun?.(await prune(runCtx, { days: options.days, confirm: true, scheduled: true }));
      } catch (e) {
        options.onError?.(e);
      }
    });
    timer = clock.setTimer(tick, interval);
  };
  timer = clock.setTimer(tick, options.firstDelayMs ?? 60_000);
  return {
    stop() {
      stopped = true;
      stopping.abort();
      if (timer !== undefined) clock.clearTimer(timer);
    },
    idle: () => running,
  };
}
