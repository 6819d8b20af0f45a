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
import { writeGateBuffer } from '../../core/db/writeGate';
import type { Handlers, HandlerEnv } from '../registry';
import type { ServiceContext } from '../../core/context';
import { WORKER_JOB_CHANNELS, type FromJobWorker, type ToJobWorker, type WorkerJobChannel, type WorkerJobData } from './protocol';

/** After a cancel, the job stops at its next page; a worker that does not is stopped outright. */
const CANCEL_GRACE_MS = 10_000;

/**
 * The built app ships the worker as its own bundle beside main's (electron.vite.config.ts input
 * `jobWorker`); from source (tsx, vitest) the worker registers tsx and loads the TypeScript entry.
 */
function startWorker(data: WorkerJobData): Worker {
  const built = path.join(__dirname, 'jobWorker.js');
  if (!__filename.endsWith('.ts') && fs.existsSync(built)) return new Worker(built, { workerData: data });
  const req = createRequire(__filename);
  const entry = path.join(__dirname, 'worker.ts');
  const boot = `require(${JSON.stringify(req.resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(entry)});`;
  return new Worker(boot, { eval: true, workerData: data });
}

let running = 0;
/** How many job workers are running now (tests and the bench check that a job really left main). */
export const activeJobWorkers = (): number => running;

/** Runs `channel`'s handler on its own connection in a worker; resolves with the handler's result. */
export function runInWorker(data: WorkerJobData, ctx: Pick<ServiceContext, 'signal' | 'progress'>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(data);
    running++;
    worker.once('exit', () => running--);
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(killTimer);
      ctx.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      worker.postMessage({ type: 'cancel' } satisfies ToJobWorker);
      killTimer = setTimeout(() => void worker.terminate(), CANCEL_GRACE_MS);
      killTimer.unref?.();
    };
    if (ctx.signal?.aborted) onAbort();
    else ctx.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: FromJobWorker) => {
      if (m.type === 'progress') ctx.progress?.(m.done, m.total, m.label);
      else if (m.type === 'done') finish(() => resolve(m.result));
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
const inProcess = () => process.env.REFLECTION_JOBS_IN_PROCESS === '1';

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
      if (inProcess() || ctx.now) return original(input, ctx, env);
      const data = jobData(channel, input, env.session, ctx);
      return withoutAutoCheckpoint(env.session.db, () => runInWorker(data, ctx));
    };
  }
  return out as Handlers;
}

function jobData(channel: WorkerJobChannel, input: unknown, session: WorkspaceSession, ctx: ServiceContext): WorkerJobData {
  return { channel, input, workspaceDir: session.dir, dbFile: session.current().dbFile, actor: ctx.actor, writeGate: writeGateBuffer() };
}
