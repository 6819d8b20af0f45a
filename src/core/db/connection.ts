import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { AppError } from '../../shared/errors';
import { DEFAULT_STORAGE_CONFIG, sqliteStorageConfigSchema, type SQLiteStorageConfigInput, type SQLiteStorageConfig } from './config';
import { latestVersion, loadMigrations, migrate, type MigrationResult } from './migrate';
import { throughWriteGate } from './writeGate';

export type DB = Database.Database;

export const STATE_DIR = '.openclaw-reflection';

export interface OpenOptions {
  config?: SQLiteStorageConfigInput;
  /** Path of a better-sqlite3 addon built for this runtime (Electron passes its own copy). */
  nativeBinding?: string;
  readonly?: boolean;
  /** Skip migrating (used to inspect a file without changing it). */
  noMigrate?: boolean;
}

export interface OpenedDatabase {
  db: DB;
  file: string;
  config: SQLiteStorageConfig;
  migration: MigrationResult;
}

export function dbPathFor(workspaceDir: string, config: SQLiteStorageConfig = DEFAULT_STORAGE_CONFIG): string {
  return path.isAbsolute(config.dbPath) ? config.dbPath : path.join(workspaceDir, config.dbPath);
}

/** better-sqlite3's nativeBinding option for this runtime (Electron sets REFLECTION_SQLITE_BINDING to its ABI copy). */
export function nativeBindingOption(explicit?: string): { nativeBinding?: string } {
  const binding = explicit ?? process.env.REFLECTION_SQLITE_BINDING;
  return binding ? { nativeBinding: binding } : {};
}

/** Looks at an existing file read-only: is it SQLite, and which schema version does it carry? */
function inspectExisting(file: string, nativeBinding?: string): number {
  let probe: DB | undefined;
  try {
    probe = new Database(file, { readonly: true, fileMustExist: true, ...nativeBindingOption(nativeBinding) });
    const version = probe.pragma('user_version', { simple: true }) as number;
    probe.prepare('SELECT count(*) FROM sqlite_schema').get();
    return version;
  } catch (e) {
    throw new AppError(
      'Invalid',
      `${file} is not a readable Reflection database (${(e as Error).message}). The file was left untouched; ` +
        'move it aside or restore a backup to continue.',
    );
  } finally {
    probe?.close();
  }
}

/** Applies the seed's connection settings to any connection: every connection is opened the same way. */
export function applyPragmas(db: DB, config: SQLiteStorageConfig, opts: { readonly?: boolean } = {}): void {
  db.pragma(`busy_timeout = ${config.busyTimeoutMs}`);
  db.pragma('foreign_keys = ON');
  db.pragma(`cache_size = ${config.cacheSizePages}`);
  db.pragma(`mmap_size = ${config.mmapSizeMB * 1024 * 1024}`);
  if (!opts.readonly) {
    if (config.walMode) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
  }
}

export function openDatabaseFile(file: string, opts: OpenOptions = {}): OpenedDatabase {
  const config = sqliteStorageConfigSchema.parse(opts.config ?? {});
  const exists = fs.existsSync(file) && fs.statSync(file).size > 0;
  if (exists) {
    const version = inspectExisting(file, opts.nativeBinding);
    const latest = latestVersion(loadMigrations());
    if (version > latest) {
      throw new AppError(
        'Invalid',
        `${file} was made by a newer version of Reflection Workbench (schema ${version}, this version knows up to ${latest}). ` +
          'The file was left untouched; update the workbench to open it.',
      );
    }
  } else if (opts.readonly) {
    throw new AppError('NotFound', `no Reflection database at ${file}`);
  } else {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  }

  const db = new Database(file, { readonly: opts.readonly ?? false, ...nativeBindingOption(opts.nativeBinding) });
  try {
    if (!exists && !opts.readonly) {
      // Must precede the first table: auto_vacuum cannot be switched on later without a full VACUUM.
      db.pragma(`auto_vacuum = ${config.autoVacuum ? 'INCREMENTAL' : 'NONE'}`);
    }
    applyPragmas(db, config, { readonly: opts.readonly });
    const migration = opts.readonly || opts.noMigrate ? { from: 0, to: 0, applied: [] } : migrate(db, { file });
    return { db, file, config, migration };
  } catch (e) {
    db.close();
    throw e;
  }
}

/** Opens (creating and migrating if needed) the workspace database at <workspace>/.openclaw-reflection/reflection.db. */
export function openWorkspaceDatabase(workspaceDir: string, opts: OpenOptions = {}): OpenedDatabase {
  const config = sqliteStorageConfigSchema.parse(opts.config ?? {});
  if (!fs.existsSync(workspaceDir) || !fs.statSync(workspaceDir).isDirectory()) {
    throw new AppError('NotFound', `workspace folder ${workspaceDir} does not exist`);
  }
  return openDatabaseFile(dbPathFor(workspaceDir, config), { ...opts, config });
}

/** Runs fn in a write transaction taken up front (BEGIN IMMEDIATE), so concurrent writers queue on busy_timeout instead of failing. */
export function writeTx<T>(db: DB, fn: () => T): T {
  // a job worker steps aside here while main has a writer waiting, and marks the time it holds the lock (writeGate.ts)
  return throughWriteGate((inLock) => db.transaction(() => inLock(fn)).immediate());
}
