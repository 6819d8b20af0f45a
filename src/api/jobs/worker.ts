// Worker-thread entry for long jobs: opens its own connection to the workspace database and runs the
// channel's ordinary job handler on it, posting progress and the result back to the JobManager in main.
// WAL lets main keep reading while this connection writes; its commits wait on busy_timeout, never fail.
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { restoreDeferredIndexes } from '../../core/db/bulk';
import { openDatabaseFile, type DB } from '../../core/db/connection';
import { joinWriteGate } from '../../core/db/writeGate';
import { toErrorBody } from '../errors';
import { datasetHandlers } from '../handlers/dataset';
import { importHandlers } from '../handlers/imports';
import { lifecycleHandlers } from '../handlers/lifecycle';
import type { HandlerEnv } from '../registry';
import type { ServiceContext } from '../../core/context';
import { copyDatabase } from '../../core/lifecycle/backup';
import { runScheduledArchive } from '../../core/lifecycle/archive';
import { pruneOldData, type PruneResult } from '../../core/lifecycle/retention';
import { cancelled } from '../../shared/errors';
import type {
  BackupCopyInput,
  FromJobWorker,
  PruneRunInput,
  ScheduledArchiveInput,
  ToJobWorker,
  WorkerCallChannel,
  WorkerInternalChannel,
  WorkerJobData,
} from './protocol';

const PROGRESS_EVERY_MS = 50;
/**
 * A job may wait long for the write lock: main can hold it for seconds (a retention prune, a large
 * import on main), and waiting costs nothing here, while failing would lose the job.
 */
const JOB_BUSY_TIMEOUT_MS = 120_000;

type WorkerHandler = (input: unknown, ctx: ServiceContext, env: HandlerEnv) => unknown;

/** The calls' work on this connection: prune and purge are their own handlers, backup the copy of a target main checked. */
const callWork: Record<WorkerCallChannel, WorkerHandler> = {
  'retention.prune': (input, _ctx, env) => lifecycleHandlers['retention.prune'](input as never, env),
  'exclusions.purge': (input, _ctx, env) => lifecycleHandlers['exclusions.purge'](input as never, env),
  'backup.create': (input, ctx) => copyDatabase(ctx.db, (input as BackupCopyInput).output),
};

/**
 * A prune as main would run it at its caller's time. A stop sent while this worker booted (the app or
 * `watch` quitting) deletes nothing; once begun, the prune is one transaction and ends whole, or not at
 * all if the worker is terminated.
 */
function pruneAt(channel: WorkerInternalChannel): WorkerHandler {
  return (input, ctx): PruneResult => {
    if (ctx.signal?.aborted) throw cancelled(channel);
    const { options, at } = input as PruneRunInput;
    return pruneOldData({ ...ctx, now: () => at }, options);
  };
}
const internalWork: Record<WorkerInternalChannel, WorkerHandler> = {
  'retention.scheduled': pruneAt('retention.scheduled'),
  'retention.run': pruneAt('retention.run'),
  'archive.scheduled': (input, ctx) => {
    const { retentionDays, at } = input as ScheduledArchiveInput;
    return runScheduledArchive({ ...ctx, now: () => at }, { retentionDays });
  },
  'indexes.restore': async (_input, ctx) => {
    await restoreDeferredIndexes(ctx.db);
    return null;
  },
};
const handlers: Record<string, unknown> = { ...datasetHandlers, ...importHandlers, ...lifecycleHandlers, ...callWork, ...internalWork };

/**
 * The part of HandlerEnv the job handlers use: the workspace folder and service contexts on this
 * worker's connection. Anything else (jobs, drag-out) belongs to main and is not reachable here.
 */
function workerEnv(db: DB, job: WorkerJobData, base: ServiceContext): HandlerEnv {
  const session = {
    dir: job.workspaceDir,
    db,
    isOpen: () => true,
    serviceContext: (extra: Partial<ServiceContext> = {}): ServiceContext => ({ ...base, ...extra }),
  };
  return { mode: 'web', version: '', session, jobs: undefined } as unknown as HandlerEnv;
}

async function runJob(job: WorkerJobData): Promise<FromJobWorker> {
  const handler = handlers[job.channel] as WorkerHandler | undefined;
  if (typeof handler !== 'function')
    return { type: 'failed', error: { kind: 'Internal', message: `${job.channel} cannot run in a job worker` } };
  const controller = new AbortController();
  const onMessage = (m: ToJobWorker) => {
    if (m.type === 'cancel') controller.abort();
  };
  parentPort!.on('message', onMessage);
  // A cancel sent while this thread booted is queued already, but the listener would get it only
  // after the handler's first await: take it now, so the handler starts cancelled.
  for (let queued = receiveMessageOnPort(parentPort!); queued; queued = receiveMessageOnPort(parentPort!)) {
    onMessage(queued.message as ToJobWorker);
  }
  let last = 0;
  let lastLabel: string | undefined;
  const progress = (done: number, total: number | null, label?: string) => {
    const now = performance.now();
    // a new step always goes out: a long silence may follow it
    if (now - last < PROGRESS_EVERY_MS && done !== total && label === lastLabel) return;
    last = now;
    lastLabel = label;
    post({ type: 'progress', done, total, label });
  };
  const finishing = () => post({ type: 'finishing' });
  let db: DB | undefined;
  joinWriteGate(job.writeGate);
  try {
    db = openDatabaseFile(job.dbFile, { config: { busyTimeoutMs: JOB_BUSY_TIMEOUT_MS } }).db;
    const ctx: ServiceContext = { db, workspaceDir: job.workspaceDir, actor: job.actor, signal: controller.signal, progress, finishing };
    const result = await handler(job.input, ctx, workerEnv(db, job, ctx));
    return { type: 'done', result };
  } catch (e) {
    return { type: 'failed', error: toErrorBody(e) };
  } finally {
    db?.close();
  }
}

function post(message: FromJobWorker): void {
  parentPort!.postMessage(message);
}

if (parentPort) {
  void runJob(workerData as WorkerJobData).then((message) => {
    post(message);
    // the cancel listener would keep the thread alive: closing the port lets it exit
    parentPort!.close();
  });
}
