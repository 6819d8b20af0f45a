// Schema lookups and foreign-key bookkeeping found from the schema, so tables other migrations add are covered too.
import type { DB } from '../connection';
import { stmt } from '../statements';

/**
 * Deleting data that other areas' tables point at (without ON DELETE CASCADE) would fail, and
 * this area cannot know every table other migrations add. So deletes run with deferred foreign
 * keys and, before commit, every dangling reference is resolved the way a cascade would: a
 * nullable reference is cleared, a required one takes its row with it. Returns rows touched per table.
 */
export function repairDanglingReferences(db: DB, maxRounds = 20): Record<string, number> {
  const touched: Record<string, number> = {};
  const columnsCache = new Map<string, { fk: Map<number, string[]>; notNull: Set<string> }>();
  const info = (table: string) => {
    let c = columnsCache.get(table);
    if (!c) {
      const fk = new Map<number, string[]>();
      for (const r of db.pragma(`foreign_key_list("${table.replace(/"/g, '""')}")`) as { id: number; from: string }[]) {
        fk.set(r.id, [...(fk.get(r.id) ?? []), r.from]);
      }
      const notNull = new Set(
        (db.pragma(`table_info("${table.replace(/"/g, '""')}")`) as { name: string; notnull: number }[])
          .filter((r) => r.notnull)
          .map((r) => r.name),
      );
      c = { fk, notNull };
      columnsCache.set(table, c);
    }
    return c;
  };
  for (let round = 0; round < maxRounds; round++) {
    const violations = db.pragma('foreign_key_check') as { table: string; rowid: number | null; parent: string; fkid: number }[];
    if (violations.length === 0) return touched;
    for (const v of violations) {
      if (v.rowid === null) continue;
      const { fk, notNull } = info(v.table);
      const cols = fk.get(v.fkid) ?? [];
      const quoted = `"${v.table.replace(/"/g, '""')}"`;
      if (cols.length && cols.every((c) => !notNull.has(c))) {
        db.prepare(`UPDATE ${quoted} SET ${cols.map((c) => `"${c}" = NULL`).join(', ')} WHERE rowid = ?`).run(v.rowid);
      } else {
        db.prepare(`DELETE FROM ${quoted} WHERE rowid = ?`).run(v.rowid);
      }
      touched[v.table] = (touched[v.table] ?? 0) + 1;
    }
  }
  return touched;
}

/** Every (table, column) that references file_snapshots, found from the schema so other areas' tables count too. */
export function snapshotReferences(db: DB): { table: string; column: string }[] {
  const tables = stmt(db, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
  const refs: { table: string; column: string }[] = [];
  for (const t of tables) {
    for (const r of db.pragma(`foreign_key_list("${t.replace(/"/g, '""')}")`) as { table: string; from: string }[]) {
      if (r.table === 'file_snapshots') refs.push({ table: t, column: r.from });
    }
  }
  return refs;
}

/** Deletes the candidate snapshots (ids in temp table `temp.<candidates>`) that nothing references any more. */
export function deleteUnreferencedSnapshots(db: DB, candidates: string): number {
  const refs = snapshotReferences(db);
  const notReferenced = refs.map((r) => `NOT EXISTS (SELECT 1 FROM "${r.table}" x WHERE x."${r.column}" = c.id)`).join(' AND ');
  const sql = `DELETE FROM file_snapshots WHERE id IN (SELECT c.id FROM temp."${candidates}" c${notReferenced ? ` WHERE ${notReferenced}` : ''})`;
  return db.prepare(sql).run().changes;
}

export function tableExists(db: DB, name: string): boolean {
  return stmt(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

export function indexExists(db: DB, name: string): boolean {
  return stmt(db, "SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?").get(name) !== undefined;
}

export function countTableRows(db: DB, table: string): number {
  return stmt(db, `SELECT count(*) FROM "${table.replace(/"/g, '""')}"`)
    .pluck()
    .get() as number;
}

/** The table's columns in order, with declared type and primary-key position (0: not in the key). */
export function listTableColumns(db: DB, table: string): Array<{ name: string; type: string; pk: number }> {
  return stmt<{ name: string; type: string; pk: number }>(db, 'SELECT name, type, pk FROM pragma_table_info(?)').all(table);
}

/** Every row of the table, the given columns only, in the order of one column (streamed). */
export function iterateRowsOrderedBy(db: DB, table: string, columns: string[], orderBy: string): IterableIterator<Record<string, unknown>> {
  const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
  return stmt<Record<string, unknown>>(db, `SELECT ${columns.map(q).join(', ')} FROM ${q(table)} ORDER BY ${q(orderBy)}`).iterate();
}
