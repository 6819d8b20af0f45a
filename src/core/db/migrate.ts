import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { AppError } from '../../shared/errors';

/** First-line marker of a migration that rebuilds a referenced table (see migrate). */
const FOREIGN_KEYS_OFF = /^--\s*migrate:\s*foreign-keys-off\b/m;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

let foundDir: string | undefined;

/** The migrations folder, found from source (tests, CLI) and from the bundled main process. Looked up once. */
export function migrationsDir(): string {
  if (foundDir) return foundDir;
  const candidates = [
    process.env.REFLECTION_MIGRATIONS_DIR,
    path.resolve(__dirname, '../../../migrations'),
    path.resolve(__dirname, '../../migrations'),
    path.resolve(__dirname, '../migrations'),
    path.resolve(process.cwd(), 'migrations'),
  ].filter((p): p is string => Boolean(p));
  const found = candidates.find((p) => fs.existsSync(path.join(p, '0010_init.sql')));
  if (!found) throw new AppError('Internal', `migrations folder not found (looked in ${candidates.join(', ')})`);
  foundDir = found;
  return found;
}

const cached = new Map<string, Migration[]>();

/** Numbered SQL files (0010_init.sql, 0020_fts.sql, ...), applied in order; the number is the user_version. */
export function loadMigrations(dir = migrationsDir()): Migration[] {
  const known = cached.get(dir);
  if (known) return known;
  const list = fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f, sql: fs.readFileSync(path.join(dir, f), 'utf8') }));
  const seen = new Set<number>();
  for (const m of list) {
    if (seen.has(m.version)) throw new AppError('Internal', `two migrations share version ${m.version}`);
    seen.add(m.version);
  }
  cached.set(dir, list);
  return list;
}

export function latestVersion(migrations = loadMigrations()): number {
  return migrations.at(-1)?.version ?? 0;
}

export interface MigrationResult {
  from: number;
  to: number;
  applied: string[];
  backupPath?: string;
}

/**
 * Applies every pending migration in one transaction. A database made by a newer version is refused
 * before anything is written. A file that already holds data is backed up before the first pending step.
 */
export function migrate(db: Database.Database, opts: { file?: string; migrations?: Migration[] } = {}): MigrationResult {
  const migrations = opts.migrations ?? loadMigrations();
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = latestVersion(migrations);
  if (current > latest) {
    throw new AppError(
      'Invalid',
      `This database was made by a newer version of Reflection Workbench (schema ${current}, this version knows up to ${latest}). ` +
        'Update the workbench; the database was left untouched.',
    );
  }
  const pending = migrations.filter((m) => m.version > current);
  if (pending.length === 0) return { from: current, to: current, applied: [] };

  let backupPath: string | undefined;
  if (opts.file && current > 0 && fs.existsSync(opts.file)) {
    // Flush the WAL into the main file so the copy is complete, then copy it aside.
    db.pragma('wal_checkpoint(TRUNCATE)');
    backupPath = `${opts.file}.v${current}.bak`;
    fs.copyFileSync(opts.file, backupPath);
  }

  // SQLite cannot alter a constraint: a migration that rebuilds a table others reference says so
  // with this marker, and runs the documented way: foreign keys off around the transaction (the
  // pragma is a no-op inside one), then foreign_key_check before commit, so nothing dangles.
  const fkOff = pending.some((m) => FOREIGN_KEYS_OFF.test(m.sql));
  const fkWasOn = db.pragma('foreign_keys', { simple: true }) === 1;
  const apply = db.transaction(() => {
    for (const m of pending) {
      try {
        db.exec(m.sql);
      } catch (e) {
        throw new AppError('Internal', `migration ${m.name} failed: ${(e as Error).message}`);
      }
      db.pragma(`user_version = ${m.version}`);
    }
    if (fkOff) {
      const broken = db.pragma('foreign_key_check') as { table: string; parent: string }[];
      if (broken.length)
        throw new AppError(
          'Internal',
          `migration left ${broken.length} broken references (first: ${broken[0]!.table} -> ${broken[0]!.parent})`,
        );
    }
  });
  if (fkOff) db.pragma('foreign_keys = OFF');
  try {
    apply.immediate();
  } finally {
    if (fkOff && fkWasOn) db.pragma('foreign_keys = ON');
  }
  return { from: current, to: latest, applied: pending.map((m) => m.name), backupPath };
}
