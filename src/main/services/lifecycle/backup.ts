import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { nativeBindingOption, STATE_DIR } from '../../db/connection';
import { AppError } from '../../../shared/errors';
import { nowOf, type ServiceContext } from '../context';

export interface BackupOptions {
  /** Where to write the copy; default <workspace>/.openclaw-reflection/backups/reflection-<UTC time>.db. */
  output?: string;
  /** Replace an existing file at output (default: refuse). */
  overwrite?: boolean;
}

export interface BackupResult {
  file: string;
  bytes: number;
  pages: number;
  integrity: string;
  tookMs: number;
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

export function defaultBackupPath(workspaceDir: string, at: number): string {
  return path.join(workspaceDir, STATE_DIR, 'backups', `reflection-${stamp(at)}.db`);
}

/**
 * Copies the live database through SQLite's online backup API. Copying every page in one step
 * means the copy is one consistent read transaction: in WAL mode the plugin and the app keep
 * writing meanwhile, and the step never restarts because a page changed under it (which the
 * default 100-page steps do under a steady writer, possibly forever).
 * The copy is written beside its target and renamed into place, so a failed backup never
 * leaves a file that looks complete; it is checked with PRAGMA integrity_check before that.
 */
export async function backupDatabase(ctx: ServiceContext, options: BackupOptions = {}): Promise<BackupResult> {
  const started = performance.now();
  const output = path.resolve(options.output ?? defaultBackupPath(ctx.workspaceDir, nowOf(ctx)));
  const source = ctx.db.name ? path.resolve(ctx.db.name) : undefined;
  if (source && output === source) throw new AppError('Invalid', `output: ${output} is the live database itself`);
  if (fs.existsSync(output) && !options.overwrite) {
    throw new AppError('Conflict', `output: ${output} already exists (pass overwrite to replace it)`);
  }
  fs.mkdirSync(path.dirname(output), { recursive: true });
  const partial = `${output}.partial-${process.pid}`;
  fs.rmSync(partial, { force: true });
  try {
    const progress = await ctx.db.backup(partial, { progress: () => 0x7fffffff });
    const copy = new Database(partial, nativeBindingOption());
    let integrity: string;
    try {
      // The copy inherits the source's WAL mode; make it a self-contained single file.
      copy.pragma('journal_mode = DELETE');
      integrity = (copy.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
    } finally {
      copy.close();
    }
    if (integrity !== 'ok') throw new AppError('Internal', `backup failed its integrity check: ${integrity}`);
    fs.renameSync(partial, output);
    return { file: output, bytes: fs.statSync(output).size, pages: progress.totalPages, integrity, tookMs: performance.now() - started };
  } catch (e) {
    fs.rmSync(partial, { force: true });
    for (const suffix of ['-wal', '-shm', '-journal']) fs.rmSync(partial + suffix, { force: true });
    if (e instanceof AppError) throw e;
    throw new AppError('Io', `backup to ${output} failed: ${(e as Error).message}`);
  }
}
