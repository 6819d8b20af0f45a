// Erasure across history: the schema walk that finds every text column, the generic sweep that
// rewrites a value in place, the snapshot rewrites and the erasure stubs (erasures). Table and column
// names come from the schema itself and are quoted; values are always bound.
import type { MemoryFileName } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function listTableNames(db: DB): string[] {
  return stmt(db, "SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
}

export function listForeignKeys(db: DB, table: string): Array<{ target: string; column: string }> {
  return stmt<{ target: string; column: string }>(db, 'SELECT "table" AS target, "from" AS column FROM pragma_foreign_key_list(?)').all(
    table,
  );
}

/** Rows of the table whose column holds any of the spellings. */
export function countRowsContaining(db: DB, table: string, column: string, spellings: string[]): number {
  const where = spellings.map(() => `instr(${q(column)}, ?) > 0`).join(' OR ');
  return stmt(db, `SELECT count(*) FROM ${q(table)} WHERE ${where}`)
    .pluck()
    .get(...spellings) as number;
}

export function replaceInColumn(db: DB, table: string, column: string, value: string, replacement: string): void {
  stmt(db, `UPDATE ${q(table)} SET ${q(column)} = replace(${q(column)}, ?, ?) WHERE instr(${q(column)}, ?) > 0`).run(
    value,
    replacement,
    value,
  );
}

export function listFts5Tables(db: DB): string[] {
  return stmt(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%'")
    .pluck()
    .all() as string[];
}

/** Merges an FTS5 index's segments, which keep replaced tokens until then. */
export function optimizeFtsIndex(db: DB, table: string): void {
  stmt(db, `INSERT INTO ${q(table)}(${q(table)}) VALUES ('optimize')`).run();
}

export interface ErasureInsert {
  id: string;
  valueHash: string;
  salt: string;
  erasedBy: string;
  erasedAt: number;
  summaryJson: string;
}

export function insertErasure(db: DB, e: ErasureInsert): void {
  stmt(db, 'INSERT INTO erasures (id, value_hash, salt, erased_by, erased_at, summary) VALUES (?, ?, ?, ?, ?, ?)').run(
    e.id,
    e.valueHash,
    e.salt,
    e.erasedBy,
    e.erasedAt,
    e.summaryJson,
  );
}

export interface ErasureRow {
  id: string;
  erased_by: string;
  erased_at: number;
  value_hash: string;
  summary: string;
}

export function listErasureRows(db: DB): ErasureRow[] {
  return stmt<ErasureRow>(db, 'SELECT id, erased_by, erased_at, value_hash, summary FROM erasures ORDER BY erased_at DESC').all();
}

export interface SnapshotContentRow {
  id: string;
  file_name: MemoryFileName;
  content: string;
  content_hash: string;
}

export function listSnapshotsContaining(db: DB, value: string): SnapshotContentRow[] {
  return stmt<SnapshotContentRow>(db, 'SELECT id, file_name, content, content_hash FROM file_snapshots WHERE instr(content, ?) > 0').all(
    value,
  );
}

/** Another snapshot of the file with this content hash. */
export function findTwinSnapshot(db: DB, file: MemoryFileName, contentHash: string, exceptId: string): string | undefined {
  return stmt(db, 'SELECT id FROM file_snapshots WHERE file_name = ? AND content_hash = ? AND id <> ?')
    .pluck()
    .get(file, contentHash, exceptId) as string | undefined;
}

/** Points every reference in table.column at `to` instead of `from`. */
export function repointReferences(db: DB, table: string, column: string, from: string, to: string): void {
  stmt(db, `UPDATE ${q(table)} SET ${q(column)} = ? WHERE ${q(column)} = ?`).run(to, from);
}

export function deleteSnapshotById(db: DB, id: string): void {
  stmt(db, 'DELETE FROM file_snapshots WHERE id = ?').run(id);
}

export function updateSnapshotContent(db: DB, id: string, content: string, contentHash: string): void {
  stmt(db, 'UPDATE file_snapshots SET content = ?, content_hash = ? WHERE id = ?').run(content, contentHash, id);
}

/** Replaces a content hash wherever file state and planned operations recorded it. */
export function replaceRecordedHash(db: DB, from: string, to: string): void {
  stmt(db, 'UPDATE file_state SET content_hash = ? WHERE content_hash = ?').run(to, from);
  stmt(db, 'UPDATE file_operations SET expected_hash = ? WHERE expected_hash = ?').run(to, from);
  stmt(db, 'UPDATE file_operations SET planned_hash = ? WHERE planned_hash = ?').run(to, from);
}
