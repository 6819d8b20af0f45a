import type { DB } from './db/connection';

/**
 * What every service function receives. Services are plain functions over an open workspace
 * database; the CLI, the Electron IPC handlers and browser mode all call the same ones.
 */
export interface ServiceContext {
  db: DB;
  /** Absolute path of the workspace folder (holds the five memory files and .openclaw-reflection/). */
  workspaceDir: string;
  /** Injected clock (ms since epoch), so tests can drive time. Defaults to Date.now. */
  now?: () => number;
  /** Who is acting, for audit columns (rolled_back_by, corrected_by, annotated_by). Defaults to "curator". */
  actor?: string;
  /** Progress and cancellation for long work (imports, collect, export). */
  progress?: (done: number, total: number | null, label?: string) => void;
  signal?: AbortSignal;
  /**
   * Long work calls this once it takes no new work and completes what must not be cut (a collection's
   * index rebuild, which can hold for a minute on a large workspace): a cancel then waits for it
   * instead of stopping the job's worker after its grace period.
   */
  finishing?: () => void;
}

export const nowOf = (ctx: Pick<ServiceContext, 'now'>): number => (ctx.now ? ctx.now() : Date.now());
export const actorOf = (ctx: Pick<ServiceContext, 'actor'>): string => ctx.actor ?? 'curator';
