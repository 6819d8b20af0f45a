// Runs a job handler in a worker thread (src/api/jobs/worker.ts) and wraps the handler map so the
// long job channels go there. The handle, progress, cancellation and change events stay the
// JobManager's: from the renderer's side nothing changes except that main keeps answering meanwhile.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError, cancelled } from '../../shared/errors';
import type { WorkspaceSession } from '../session';
import { withoutAutoCheckpoint } from '../../core/db/bulk';
import { holdWriteGate, releaseJobTransactions, writeGateBuffer } from '../../core/db/writeGate';
import { backupDatabase, type DatabaseCopy } from '../../core/lifecycle/backup';
import { changeOf, contracts, type Channel } from '../../shared/contract';
import { backupOptions } from '../handlers/app';
import type { Handlers, HandlerEnv } from '../registry';
import type { ServiceContext } from '../../core/context';
import {
  WORKER_CALL_CHANNELS,
  WORKER_JOB_CHANNELS,
  type BackupCopyInput,
  type FromJobWorker,
  type ToJobWorker,
  type WorkerCallChannel,
  type WorkerJobData,
} from './protocol';

/** After a cancel, the job stops at its next page; a worker that does not is stopped outright. */
const CANCEL_GRACE_MS = 10_000;

/**
 * A long job allocates many short-lived objects per row. V8's default young generation grows to 32 MB of
 * semi-spaces that stay resident; at 12 MB (semi-spaces of 4 MB) a 100,000-decision collection peaked at
 * 227 MB instead of 257 MB, at the same CPU (1,179 against 1,214 µs per decision, run side by side).
 * The collection bench gives its process the same limit (--max-semi-space-size=4).
 */
const JOB_LIMITS = { maxYoungGenerationSizeMb: 12 };

/**
 * The built app ships the worker as its own bundle beside main's (electron.vite.config.ts input
 * `jobWorker`); from source (tsx, vitest) the worker registers tsx and loads the TypeScript entry.
 */
function startWorker(data: WorkerJobData): Worker {
  const built = path.join(__dirname, 'jobWorker.js');
  if (!__filename.endsWith('.ts') && fs.existsSync(built)) return new Worker(built, { workerData: data, resourceLimits: JOB_LIMITS });
  const req = createRequire(__filename);
  const entry = path.join(__dirname, 'worker.ts');
  const boot = `require(${JSON.stringify(req.resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(entry)});`;
  return new Worker(boot, { eval: true, workerData: data, resourceLimits: JOB_LIMITS });
}

let running = 0;
let started = 0;
/** How many job workers are running now (tests and the bench check that a job really left main). */
export const activeJobWorkers = (): number => running;
/** How many job workers this process has started: a worker that lived for a moment still counts. */
export const jobWorkersStarted = (): number => started;

/**
 * Runs `channel`'s handler on its own connection in a worker; resolves with the handler's result. After
 * an abort the worker has `cancelGraceMs` to finish or stop at its next page before it is terminated
 * (its connection is then closed by the thread's teardown, which rolls back an open transaction),
 * unless it said it is finishing: a collection's index rebuild, cut, would leave the workspace without
 * those indexes until the next open or collection built them again.
 */
export function runInWorker(
  data: WorkerJobData,
  ctx: Pick<ServiceContext, 'signal' | 'progress'>,
  cancelGraceMs = CANCEL_GRACE_MS,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(data);
    running++;
    started++;
    worker.once('exit', () => {
      if (--running === 0) releaseJobTransactions();
    });
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(killTimer);
      ctx.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    // Once the job finishes what must not be cut (ServiceContext.finishing), a cancel waits for it.
    let finishing = false;
    const onAbort = () => {
      worker.postMessage({ type: 'cancel' } satisfies ToJobWorker);
      if (finishing) return;
      killTimer = setTimeout(() => void worker.terminate(), cancelGraceMs);
      killTimer.unref?.();
    };
    if (ctx.signal?.aborted) onAbort();
    else ctx.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: FromJobWorker) => {
      if (m.type === 'progress') ctx.progress?.(m.done, m.total, m.label);
      else if (m.type === 'finishing') {
        finishing = true;
        clearTimeout(killTimer);
      } else if (m.type === 'done') finish(() => resolve(m.result));
      else finish(() => reject(new AppError(m.error.kind, m.error.message, m.error.details)));
    });
    worker.once('error', (e) => finish(() => reject(new AppError('Internal', `${data.channel} worker failed: ${e.message}`))));
    worker.once('exit', (code) =>
      finish(() =>
        ctx.signal?.aborted
          ? reject(cancelled(data.channel))
          : reject(new AppError('Internal', `${data.channel} worker exited with code ${code} before it finished`)),
      ),
    );
  });
}

/** REFLECTION_JOBS_IN_PROCESS=1 keeps every job on main's connection (debugging, profiling). */
export const jobsInProcess = () => process.env.REFLECTION_JOBS_IN_PROCESS === '1';

/**
 * Routes the long job channels to a worker. A handler replaced by the caller (tests observing calls)
 * stays in process, and so does a job whose context has an injected clock: a function cannot cross
 * to the worker, and tests that drive time need it exact.
 */
export function offloadJobs(handlers: Handlers, overridden: Partial<Handlers> = {}): Handlers {
  const out = { ...handlers } as Record<string, unknown>;
  for (const channel of WORKER_JOB_CHANNELS) {
    if (channel in overridden) continue;
    const original = handlers[channel] as (input: unknown, ctx: ServiceContext, env: HandlerEnv) => unknown;
    out[channel] = (input: unknown, ctx: ServiceContext, env: HandlerEnv) => {
      if (jobsInProcess() || ctx.now) return original(input, ctx, env);
      const data = jobData(channel, input, env.session, ctx);
      return withoutAutoCheckpoint(env.session.db, () => runInWorker(data, ctx));
    };
  }
  return offloadCalls(out as Handlers, overridden);
}

type CallHandler = (input: unknown, env: HandlerEnv) => unknown;

/**
 * Mutations that do not wait for a job's transaction: a cancel must act at once and a drag writes
 * nothing; opening another workspace cancels the jobs of this one; and the calls a worker runs
 * (WORKER_CALL_CHANNELS) write through that worker, which would step aside from its own caller.
 */
const WRITES_WITHOUT_WAITING: ReadonlySet<Channel> = new Set<Channel>([
  'jobs.cancel',
  'exports.startDrag',
  'workspace.open',
  ...WORKER_CALL_CHANNELS,
]);

/**
 * Main's mutations wait for a job's transaction without blocking main's event loop, as a live capture
 * pass does (holdWriteGate), and the job steps aside until the mutation is done. On main's thread a
 * write would otherwise wait in SQLite's busy handler, which blocks every other call and gives up after
 * busy_timeout (5 s by default): an index rebuild at the end of a collection of 1,000,000 decisions
 * holds the lock for 5-9 s alone and about 20 s under load (docs/benchmarks.md), and the curator's
 * click failed as "database is locked". Outside the app (no job was ever started) the handler just runs.
 */
export function writeAfterJobTransactions(handlers: Handlers): Handlers {
  const out = { ...handlers } as Record<string, unknown>;
  for (const channel of Object.keys(handlers) as Channel[]) {
    if (contracts[channel].kind !== 'mutation' || WRITES_WITHOUT_WAITING.has(channel)) continue;
    const original = handlers[channel] as CallHandler;
    out[channel] = (input: unknown, env: HandlerEnv) => holdWriteGate(async () => original(input, env));
  }
  return out as Handlers;
}

/**
 * The heavy calls (WORKER_CALL_CHANNELS) keep their contract: main's handler awaits the same work done
 * on a worker's connection. A prune or a purge runs whole there; a backup's target is checked and the
 * backup recorded on main, only the page copy and its integrity check run there.
 */
function offloadCalls(handlers: Handlers, overridden: Partial<Handlers>): Handlers {
  const out = { ...handlers } as Record<string, unknown>;
  const stayHere = (channel: WorkerCallChannel, ctx: ServiceContext) => channel in overridden || jobsInProcess() || ctx.now !== undefined;
  for (const channel of ['retention.prune', 'exclusions.purge'] as const) {
    const here = handlers[channel] as CallHandler;
    out[channel] = (input: unknown, env: HandlerEnv) => {
      const ctx = env.session.serviceContext();
      if (stayHere(channel, ctx)) return here(input, env);
      const data = jobData(channel, input, env.session, ctx);
      return announcedAs(env, changeOf(channel, input, null), () => withoutAutoCheckpoint(env.session.db, () => runInWorker(data, {})));
    };
  }
  const backup = handlers['backup.create'] as CallHandler;
  out['backup.create'] = (input: { file?: string }, env: HandlerEnv) => {
    const ctx = env.session.serviceContext();
    if (stayHere('backup.create', ctx)) return backup(input, env);
    return backupDatabase(ctx, backupOptions(input, env), async (output) => {
      const copied = await runInWorker(jobData('backup.create', { output } satisfies BackupCopyInput, env.session, ctx), {});
      return copied as DatabaseCopy;
    });
  };
  return out as Handlers;
}

/**
 * A worker's commits look like another process's to main's connection (data_version): while the call
 * runs they are announced with the areas it changes. Released a turn after the answer, once the
 * registry has announced the call itself.
 */
async function announcedAs<T>(env: HandlerEnv, change: ReturnType<typeof changeOf>, work: () => Promise<T>): Promise<T> {
  const done = change ? env.jobs.trackWriting(change) : () => undefined;
  try {
    return await work();
  } finally {
    setImmediate(done);
  }
}

function jobData(channel: WorkerJobData['channel'], input: unknown, session: WorkspaceSession, ctx: ServiceContext): WorkerJobData {
  return { channel, input, workspaceDir: session.dir, dbFile: session.current().dbFile, actor: ctx.actor, writeGate: writeGateBuffer() };
}
