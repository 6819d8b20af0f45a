// Who is acting, per request. Browser mode serves several curators from one process and one database
// connection, so the actor cannot live on the shared ServiceContext: the web server runs each request
// inside runAsCurator(name, ...), and WorkspaceSession.serviceContext() reads it from here.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DB } from '../db/connection';
import { findLocalCuratorName } from '../db/repositories/curators';

const requestCurator = new AsyncLocalStorage<string>();

export function runAsCurator<T>(name: string, fn: () => T): T {
  return requestCurator.run(name, fn);
}

/** The curator of the request being handled, if a request set one. */
export const currentCurator = (): string | undefined => requestCurator.getStore();

/** The local curator's name (asked once by the desktop app), or null before it was given. */
export function localCuratorName(db: DB): string | null {
  try {
    return findLocalCuratorName(db) ?? null;
  } catch {
    // a database from before the curators table: nobody has been named yet
    return null;
  }
}

/** The actor for a request: its curator, else the given default, else the local curator, else "curator". */
export function resolveActor(db: DB, fallback?: string): string {
  return currentCurator() ?? fallback ?? localCuratorName(db) ?? 'curator';
}
