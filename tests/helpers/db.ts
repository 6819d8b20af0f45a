// Database helpers for migration and query tests, after Signal-Desktop's SQL test helpers: bring a real
// SQLite file to a chosen schema version, seed it with rows, read them back, and ask SQLite for its plan.
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadMigrations, migrate, type MigrationResult } from '../../src/core/db/migrate';
import { tempWorkspace } from './workspace';

type Db = Database.Database;
type Row = Record<string, unknown>;

/** A new database file in a temp folder, foreign keys on as the app opens it, at schema version 0. */
export function emptyDatabase(): { db: Db; file: string } {
  const file = path.join(tempWorkspace('reflection-db-'), 'reflection.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  return { db, file };
}

/**
 * Applies the real migrations up to and including `version` (a migration's number, or the version the
 * database is already at). Throws when no migration has that number, so a typo does not silently stop early.
 */
export function updateToVersion(db: Db, version: number, file?: string): MigrationResult {
  const all = loadMigrations();
  const current = db.pragma('user_version', { simple: true }) as number;
  if (version !== current && !all.some((m) => m.version === version)) {
    throw new Error(`no migration numbered ${version} (known: ${all.map((m) => m.version).join(', ')})`);
  }
  if (version < current) throw new Error(`the database is at ${current}; migrations only go forward (asked for ${version})`);
  return migrate(db, { file, migrations: all.filter((m) => m.version <= version) });
}

/** The columns a table has now, so seeding can refuse a column the schema at this version lacks. */
function columnsOf(db: Db, table: string): Set<string> {
  const cols = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[];
  if (cols.length === 0) throw new Error(`no table ${table} at schema version ${db.pragma('user_version', { simple: true })}`);
  return new Set(cols);
}

/** Inserts rows (objects keyed by column) into a table, in one transaction. Objects and arrays are stored as JSON. */
export function insertData(db: Db, table: string, rows: Row[]): void {
  const known = columnsOf(db, table);
  const toSql = (v: unknown) =>
    v !== null && typeof v === 'object' && !Buffer.isBuffer(v) ? JSON.stringify(v) : typeof v === 'boolean' ? Number(v) : v;
  db.transaction(() => {
    for (const row of rows) {
      const cols = Object.keys(row);
      const unknown = cols.filter((c) => !known.has(c));
      if (unknown.length) throw new Error(`${table} has no column ${unknown.join(', ')}`);
      const sql = `INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`;
      db.prepare(sql).run(...cols.map((c) => toSql(row[c])));
    }
  })();
}

/** Every row of a table, ordered by its primary key (or rowid), for before/after comparisons. */
export function getTableData(db: Db, table: string): Row[] {
  columnsOf(db, table);
  const pk = db.prepare('SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk').pluck().all(table) as string[];
  const order = pk.length ? pk.map((c) => `"${c}"`).join(', ') : 'rowid';
  return db.prepare(`SELECT * FROM "${table}" ORDER BY ${order}`).all() as Row[];
}

/** The `EXPLAIN QUERY PLAN` of a statement, one line per step (`SEARCH t USING INDEX i (a=?)`), indented by depth. */
export function explain(db: Db, sql: string, ...params: unknown[]): string {
  const steps = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { id: number; parent: number; detail: string }[];
  const depth = new Map<number, number>([[0, -1]]);
  return steps
    .map((s) => {
      const d = (depth.get(s.parent) ?? -1) + 1;
      depth.set(s.id, d);
      return `${'  '.repeat(d)}${s.detail}`;
    })
    .join('\n');
}

/** Row counts of some tables on a connection of its own, and whether the file passes SQLite's integrity check. */
export function inspectDatabase(file: string, tables: readonly string[]): { counts: Record<string, number>; integrity: string } {
  const db = new Database(file, { readonly: true });
  try {
    const counts = Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number]));
    return { counts, integrity: db.pragma('integrity_check', { simple: true }) as string };
  } finally {
    db.close();
  }
}

/** True while another connection holds the write lock (a probe that never waits). */
export function writeLocked(file: string): boolean {
  const probe = new Database(file, { timeout: 0 });
  try {
    probe.exec('BEGIN IMMEDIATE');
    probe.exec('ROLLBACK');
    return false;
  } catch (e) {
    if ((e as { code?: string }).code === 'SQLITE_BUSY') return true;
    throw e;
  } finally {
    probe.close();
  }
}

/** insertData with only the columns the table has at the database's current version (later migrations add some). */
export function insertKnownColumns(db: Db, table: string, rows: Row[]): void {
  const known = new Set(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[]);
  insertData(
    db,
    table,
    rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => known.has(k)))),
  );
}

/**
 * Records the SQL of every statement `db` prepares from now on that `keep` accepts (a plan test checks which
 * queries ran and asks SQLite for their plans). The statements are prepared as before.
 */
export function recordPrepared(db: Db, keep: (sql: string) => boolean): string[] {
  const queries: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    if (keep(sql)) queries.push(sql);
    return prepare(sql);
  }) as typeof db.prepare;
  return queries;
}
