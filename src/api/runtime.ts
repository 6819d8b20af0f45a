// Wires one app run: the workspace session, the job manager and the handler registry. The Electron
// shell and browser mode both start from here, so the two transports serve exactly the same calls.
import type { Handlers } from './registry';
import { buildHandlers } from './handlers';
import { JobManager } from './jobs/manager';
import { offloadJobs, writeAfterJobTransactions } from './jobs/runner';
import { createRegistry, type Logger, type Registry } from './registry';
import { configurePathPolicy, type PathPolicy } from './pathPolicy';
import { WorkspaceSession } from './session';
import { attachWorkspaceServices, type WorkspaceServices } from './workspaceServices';

export interface AppRuntimeOptions {
  mode: 'electron' | 'web';
  stateDir: string;
  version?: string;
  nativeBinding?: string;
  startDrag?: (file: string) => void;
  log?: Logger;
  /** Replace handlers (tests use this to observe calls; never for production wiring). */
  handlers?: Partial<Handlers>;
  dataVersionPollMs?: number;
  /** Browser mode: folders the renderer's paths may lie in (`--allow-dir`); default: the open workspace and its plugin root. */
  allowDirs?: string[];
}

export interface AppRuntime {
  session: WorkspaceSession;
  jobs: JobManager;
  registry: Registry;
  /** Recovery, external-change recording and the lifecycle of the open workspace. */
  services: WorkspaceServices;
  /** Which paths the renderer may make main touch (dialog picks, allowed folders). */
  paths: PathPolicy;
  /** Stops jobs, the lifecycle and polling, then closes the database. */
  close(): Promise<void>;
}

export function createAppRuntime(opts: AppRuntimeOptions): AppRuntime {
  const session = new WorkspaceSession({ stateDir: opts.stateDir, nativeBinding: opts.nativeBinding });
  const services = attachWorkspaceServices(session, opts.log);
  const paths = configurePathPolicy(session, { allowDirs: opts.allowDirs });
  const jobs = new JobManager(
    (e) => session.emit(e),
    Date.now,
    (change) => session.noteLocalWrite(undefined, change),
  );
  const registry = createRegistry(
    // long jobs run in a worker thread on their own connection (src/api/jobs), so main stays responsive
    // and main's own writes wait for a job's transaction instead of failing on the busy timeout
    confineImportPaths(writeAfterJobTransactions(offloadJobs(buildHandlers(opts.handlers), opts.handlers)), paths),
    { mode: opts.mode, version: opts.version ?? '0.1.0', session, jobs, startDrag: opts.startDrag },
    opts.log,
  );
  session.startPolling(opts.dataVersionPollMs ?? 500);
  return {
    session,
    jobs,
    registry,
    services,
    paths,
    async close() {
      jobs.cancelAll();
      session.stopPolling();
      try {
        await services.stop();
      } finally {
        session.close();
      }
    },
  };
}

/**
 * Every import.* channel reads the path it is given: check it against the path policy first. The
 * path itself is passed on unchanged, so importers key their cursors by the same name as the CLI does.
 */
function confineImportPaths(handlers: Handlers, paths: PathPolicy): Handlers {
  const out = { ...handlers } as Record<string, unknown>;
  for (const [channel, handler] of Object.entries(handlers)) {
    if (!channel.startsWith('import.')) continue;
    const original = handler as (input: { path?: unknown }, ...rest: unknown[]) => unknown;
    out[channel] = (input: { path?: unknown }, ...rest: unknown[]) => {
      if (typeof input.path === 'string') paths.check('path', input.path);
      return original(input, ...rest);
    };
  }
  return out as Handlers;
}
