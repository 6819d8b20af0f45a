// Secondary indexes set aside while a bulk job loads a table (issue 16, migration 0186). An index whose
// key is random with respect to the insert order dirties a page of it per row in every transaction, and
// each commit writes those pages to the WAL again; built once from the loaded rows it is written once.
// An index is dropped and its CREATE statement recorded in the same transaction, so a crash between the
// drop and the rebuild leaves a record that restoreDeferredIndexes() acts on, never a silent loss.
import type { DB } from '../connection';
import { stmt } from '../statements';
import { indexExists } from './schema';

export interface DeferredIndex {
  name: string;
  sql: string;
}

/**
 * Drops each named index that exists and records how to create it again. Call inside a write
 * transaction: the drops and their records commit together. Returns the indexes dropped.
 */
export function deferIndexes(db: DB, names: readonly string[]): DeferredIndex[] {
  const deferred: DeferredIndex[] = [];
  for (const name of names) {
    const sql = stmt(db, "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?").pluck().get(name) as string | undefined;
    if (!sql) continue;
    stmt(db, 'INSERT INTO deferred_indexes (name, sql) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET sql = excluded.sql').run(name, sql);
    // DDL is not cached: a prepared DROP would outlive the index it names
    db.exec(`DROP INDEX "${name.replaceAll('"', '""')}"`);
    deferred.push({ name, sql });
  }
  return deferred;
}

/** The indexes a bulk job set aside and has not built again (after a crash, or while it runs). */
export function listDeferredIndexes(db: DB): DeferredIndex[] {
  return stmt<DeferredIndex>(db, 'SELECT name, sql FROM deferred_indexes ORDER BY name').all();
}

/** Builds one deferred index again, unless something already did, and clears its record. Call inside a write transaction. */
export function restoreDeferredIndex(db: DB, index: DeferredIndex): void {
  if (!indexExists(db, index.name)) db.exec(index.sql);
  stmt(db, 'DELETE FROM deferred_indexes WHERE name = ?').run(index.name);
}
