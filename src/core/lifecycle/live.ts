import fs from 'node:fs';
import path from 'node:path';
import type { MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { STATE_DIR } from '../db/connection';
import type { ServiceContext } from '../context';
import type { ImportReport } from '../../shared/contract';
import { CaptureRunner } from './live/capture';

export const GUARDIAN_LOG = 'write-guardian.log.jsonl';

export interface LiveCaptureOptions {
  /** The plugin's root folder (logs/reflection-YYYY-MM-DD.log). */
  pluginRoot: string;
  /** How far apart a file change and its audit line may be (default 5000 ms). */
  auditMatchWindowMs?: number;
  /** Fallback poll, for file systems whose change events are unreliable (default 500 ms). */
  pollIntervalMs?: number;
  onEvent?: (event: LiveCaptureEvent) => void;
}

export type LiveCaptureEvent =
  | { type: 'imported'; report: ImportReport }
  | { type: 'changed'; file: MemoryFileName; auditId: string }
  | { type: 'attached'; auditId: string; file: string; fromAuditId: string }
  | { type: 'error'; error: unknown };

export interface LiveCapture {
  /** Stops watching; resolves once the pass in progress has finished. */
  stop(): Promise<void>;
  /** Runs a pass now (and waits for it): read new log lines, look at the memory files, join them. */
  sync(): Promise<void>;
  readonly stats: { passes: number; imports: number; changes: number; attached: number; errors: number };
}

/**
 * Follows a running plugin: its log files (through the idempotent, cursor-per-file importer)
 * and the five memory files (each change recorded at once with its snapshots and diff, then
 * joined to the plugin's audit of it; see attach.ts). File-system events trigger a pass within
 * milliseconds; a slow poll catches what events miss. Passes never overlap. Everything it needs
 * to resume is in the database (import cursors, file_state, the audit watermark), so a restart
 * catches up with what happened while it was stopped.
 */
export function startLiveCapture(ctx: ServiceContext, options: LiveCaptureOptions): LiveCapture {
  const pluginRoot = path.resolve(options.pluginRoot);
  if (!fs.existsSync(pluginRoot) || !fs.statSync(pluginRoot).isDirectory()) {
    throw new AppError('NotFound', `pluginRoot: ${pluginRoot} is not a folder`);
  }
  const workspace = path.resolve(ctx.workspaceDir);
  const stateDir = path.join(workspace, STATE_DIR);
  const runner = new CaptureRunner(ctx, { pluginRoot, workspace, stateDir, guardianLog: path.join(stateDir, GUARDIAN_LOG) }, options);
  runner.startWatching(GUARDIAN_LOG);
  void runner.run(); // catch up at once
  return {
    stats: runner.stats,
    sync: () => runner.sync(),
    stop: () => runner.stop(),
  };
}
