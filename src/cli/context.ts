import path from 'node:path';
import type { Command } from 'commander';
import { AppError, isAppError } from '../shared/errors';
import { openWorkspaceDatabase, type OpenedDatabase } from '../core/db/connection';
import { loadSettings } from '../core/lifecycle/settings';

export interface GlobalOptions {
  workspace?: string;
  json?: boolean;
}

/** Adds the options every workspace command takes. */
export function withWorkspace(cmd: Command): Command {
  return cmd
    .option('-w, --workspace <dir>', 'workspace folder (default: current directory)')
    .option('--json', 'print JSON instead of a table');
}

export function workspaceDir(opts: GlobalOptions): string {
  return path.resolve(opts.workspace ?? process.cwd());
}

/** Opens the workspace database the way its settings say (storage.dbPath, pragmas), and closes it afterwards. */
export async function withDatabase<T>(opts: GlobalOptions, fn: (opened: OpenedDatabase, dir: string) => T | Promise<T>): Promise<T> {
  const dir = workspaceDir(opts);
  const opened = openWorkspaceDatabase(dir, { config: loadSettings(dir).settings.storage });
  try {
    return await fn(opened, dir);
  } finally {
    opened.db.close();
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Turns any error into a one-line message and an exit code, never a stack trace for expected errors. */
export function reportError(e: unknown): number {
  if (isAppError(e)) {
    process.stderr.write(`error (${(e as AppError).kind}): ${(e as Error).message}\n`);
    return (e as AppError).kind === 'Invalid' || (e as AppError).kind === 'NotFound' ? 2 : 1;
  }
  process.stderr.write(`error: ${(e as Error)?.stack ?? String(e)}\n`);
  return 1;
}

/** Wraps a command action so errors print cleanly and set the exit code. */
export function action<A extends unknown[]>(fn: (...args: A) => unknown | Promise<unknown>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (e) {
      process.exitCode = reportError(e);
    }
  };
}
