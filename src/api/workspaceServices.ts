// What runs whenever a workspace opens: build the indexes a collection set aside and did not build
// again, finish workbench writes a crash left unfinished, record changes made to the memory files while
// the app was closed, and start the workspace's lifecycle (live capture when a plugin root is
// configured, the archive schedule, retention).
import { reconcilePending, recordExternalChanges } from '../core/guardian';
import { startWorkspaceLifecycle, type WorkspaceLifecycle } from '../core/lifecycle';
import { cleanCrashLitter } from '../core/lifecycle/outputFiles';
import type { DataChangeSource } from '../shared/contract';
import { restoreIndexesInWorker, scheduledArchiveInWorker, scheduledPruneInWorker } from './jobs/internal';
import type { Logger } from './registry';
import type { WorkspaceSession } from './session';

/** Live capture can run a pass every 20 ms under load; the renderer needs at most one refresh per this interval. */
export const LIVE_PUSH_EVERY_MS = 100;

export interface WorkspaceServices {
  /** Resolves when the services of the current workspace have started (tests wait on it). */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

export function attachWorkspaceServices(session: WorkspaceSession, log: Logger = console): WorkspaceServices {
  let lifecycle: WorkspaceLifecycle | null = null;
  let chain: Promise<void> = Promise.resolve();
  let pushTimer: ReturnType<typeof setTimeout> | null = null;
  let pending: DataChangeSource | null = null;

  // The lifecycle writes on the session's own connection, which PRAGMA data_version does not see, so
  // its writes are pushed here: the same 'data' event reaches SSE (browser) and IPC (Electron) listeners.
  const push = (source: DataChangeSource) => {
    pending = source;
    if (pushTimer) return;
    pushTimer = setTimeout(() => {
      pushTimer = null;
      const s = pending;
      pending = null;
      if (s && session.isOpen()) session.noteLocalWrite(s);
    }, LIVE_PUSH_EVERY_MS);
    pushTimer.unref?.();
  };
  const flushPush = () => {
    if (pushTimer) clearTimeout(pushTimer);
    pushTimer = null;
    pending = null;
  };

  const stopLifecycle = async () => {
    const running = lifecycle;
    lifecycle = null;
    await running?.stop().catch((e: Error) => log.warn(`stopping the workspace lifecycle failed: ${e.message}`));
    flushPush();
  };

  const start = async (dir: string) => {
    await stopLifecycle();
    if (!session.isOpen() || session.dir !== dir) return;
    const ctx = session.serviceContext();
    // not awaited: live capture and the schedules start meanwhile, and their writes wait for each index
    restoreIndexesInWorker(ctx).catch((e: Error) => log.warn(`building the indexes a collection set aside failed: ${e.message}`));
    try {
      for (const file of cleanCrashLitter(dir)) log.warn(`removed a partial file a crashed export or backup left: ${file}`);
      for (const message of await reconcilePending(ctx)) log.warn(`recovered: ${message}`);
      const external = recordExternalChanges(ctx);
      if (external.length) {
        log.warn(`recorded ${external.length} change(s) made to the memory files outside the workbench`);
        session.noteLocalWrite();
      }
      if (session.dir !== dir) return;
      lifecycle = startWorkspaceLifecycle(ctx, {
        onEvent: (e) => {
          if (e.type === 'error') log.warn(`live capture: ${(e.error as Error)?.message ?? String(e.error)}`);
          else push('live-capture');
        },
        onArchive: (r) => {
          if (r.turns > 0 || r.removed.length > 0) push('archive');
        },
        onPrune: (r) => {
          if (Object.keys(r.deleted).length > 0) push('retention');
        },
        onArchiveError: (e) => log.warn(`scheduled archive failed: ${(e as Error).message}`),
        onPruneError: (e) => log.warn(`retention failed: ${(e as Error).message}`),
        // off main's thread, like the retention.prune call: IPC, the web server and live capture keep answering
        prune: scheduledPruneInWorker(),
        archive: scheduledArchiveInWorker,
      });
      for (const w of lifecycle.warnings) log.warn(`settings: ${w}`);
    } catch (e) {
      log.warn(`workspace services of ${dir} did not start: ${(e as Error).message}`);
    }
  };

  const unsubscribe = session.onChange((event) => {
    if (event.type !== 'workspace') return;
    const dir = event.workspace.dir;
    chain = chain.then(() => start(dir));
  });

  return {
    ready: () => chain,
    async stop() {
      unsubscribe();
      await chain;
      await stopLifecycle();
    },
  };
}
