import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { nativeBindingOption, STATE_DIR, type DB } from '../db/connection';
import { integrityCheck } from '../db/maintenance';
import { MEMORY_FILES } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { BackupResult } from '../../shared/contract';
import { refuseExisting, removeStalePartials } from './outputFiles';
import { recordBackup } from './retention';
import { SETTINGS_FILE as SETTINGS_NAME } from './settings';
import { nowOf, type ServiceContext } from '../context';

export interface BackupOptions {
  /** Where to write the copy; default <workspace>/.openclaw-reflection/backups/reflection-<UTC time>.db. */
  output?: string;
  /** Replace an existing file at output (default: refuse). */
  overwrite?: boolean;
}

export type { BackupResult };

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

export function defaultBackupPath(workspaceDir: string, at: number): string {
  return path.join(workspaceDir, STATE_DIR, 'backups', `reflection-${stamp(at)}.db`);
}

/** File names the plugin or the workbench use for themselves: a backup must never land on one. */
function reservedNameProblem(name: string): string | null {
  const lower = name.toLowerCase();
  if ((MEMORY_FILES as readonly string[]).some((m) => m.toLowerCase() === lower)) return 'is a memory file name';
  if (lower.endsWith('.md')) return 'is a Markdown file name (the agent reads those as memory)';
  if (lower.endsWith('.lock')) return 'is a lock name (a file there blocks every write to that memory file)';
  if (/\.db-(wal|shm|journal)$/.test(lower) || lower === 'reflection.db') return 'is the name of the live database or its journal';
  if (lower === SETTINGS_NAME || lower.endsWith('.log')) return 'is a settings or log file name';
  return null;
}

/** The real path the backup would be written to, after refusing names, symlinks and the live database. */
export function checkBackupTarget(output: string, liveDb?: string): string {
  if (output.includes('\u0000')) throw new AppError('Invalid', 'output: a path cannot contain a NUL character');
  const name = path.basename(output);
  const problem = reservedNameProblem(name);
  if (problem) throw new AppError('Invalid', `output: ${name} ${problem}; choose a name ending in .db`);
  if (output.split(path.sep).some((part) => part.toLowerCase().endsWith('.lock'))) {
    throw new AppError('Invalid', `output: ${output} is inside a lock folder`);
  }
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(output);
  } catch {
    stat = undefined;
  }
  if (stat?.isSymbolicLink()) throw new AppError('Invalid', `output: ${output} is a symlink; refusing to follow it`);
  if (stat && !stat.isFile()) throw new AppError('Invalid', `output: ${output} is not a regular file`);
  const real = path.join(realExistingAncestor(path.dirname(output)), name);
  if (liveDb && real === realExistingAncestor(liveDb)) throw new AppError('Invalid', `output: ${output} is the live database itself`);
  return real;
}

/** realpath of the path, or of its nearest existing ancestor with the rest appended (for a file not written yet). */
export function realExistingAncestor(p: string): string {
  const abs = path.resolve(p);
  try {
    return fs.realpathSync(abs);
  } catch {
    const parent = path.dirname(abs);
    if (parent === abs) return abs;
    return path.join(realExistingAncestor(parent), path.basename(abs));
  }
}

/** Copies the checked target's pages (copyDatabase), possibly on another connection: a job worker's. */
export type DatabaseCopier = (output: string) => Promise<DatabaseCopy>;
export type DatabaseCopy = Pick<BackupResult, 'file' | 'bytes' | 'pages' | 'integrity'>;

/**
 * Writes a backup: checks the target, copies the database (by default on ctx.db; the app passes a
 * copier that runs copyDatabase in a job worker, so main's thread never copies the pages) and records
 * it, so retention knows up to when the data is safe elsewhere.
 */
export async function backupDatabase(ctx: ServiceContext, options: BackupOptions = {}, copy?: DatabaseCopier): Promise<BackupResult> {
  const started = performance.now();
  const startedAt = nowOf(ctx);
  const output = checkBackupTarget(
    path.resolve(options.output ?? defaultBackupPath(ctx.workspaceDir, nowOf(ctx))),
    ctx.db.name || undefined,
  );
  refuseExisting([output], options.overwrite);
  const copied = await (copy ?? ((target) => copyDatabase(ctx.db, target)))(output);
  recordBackup(ctx.db, output, startedAt);
  return { ...copied, elapsedMs: performance.now() - started };
}

/**
 * Copies the live database through SQLite's online backup API. Copying every page in one step
 * means the copy is one consistent read transaction: in WAL mode the plugin and the app keep
 * writing meanwhile, and the step never restarts because a page changed under it (which the
 * default 100-page steps do under a steady writer, possibly forever).
 * The copy is written beside its target and renamed into place, so a failed backup never
 * leaves a file that looks complete; it is checked with PRAGMA integrity_check before that.
 * `output` is a target checkBackupTarget accepted.
 */
export async function copyDatabase(db: DB, output: string): Promise<DatabaseCopy> {
  fs.mkdirSync(path.dirname(output), { recursive: true });
  removeStalePartials(path.dirname(output));
  const partial = `${output}.partial-${process.pid}`;
  fs.rmSync(partial, { force: true });
  try {
    const progress = await db.backup(partial, { progress: () => 0x7fffffff });
    const copy = new Database(partial, nativeBindingOption());
    let integrity: string;
    try {
      // The copy inherits the source's WAL mode; make it a self-contained single file.
      copy.pragma('journal_mode = DELETE');
      integrity = integrityCheck(copy);
    } finally {
      copy.close();
    }
    if (integrity !== 'ok') throw new AppError('Internal', `backup failed its integrity check: ${integrity}`);
    fs.renameSync(partial, output);
    return { file: output, bytes: fs.statSync(output).size, pages: progress.totalPages, integrity };
  } catch (e) {
    fs.rmSync(partial, { force: true });
    for (const suffix of ['-wal', '-shm', '-journal']) fs.rmSync(partial + suffix, { force: true });
    if (e instanceof AppError) throw e;
    throw new AppError('Io', `backup to ${output} failed: ${(e as Error).message}`);
  }
}
