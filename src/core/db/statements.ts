// Prepared statements, cached per connection. Repositories (src/core/db/repositories/) call `stmt(db, sql)`
// instead of `db.prepare(sql)`: SQLite compiles each statement once per connection, and SQL text stays in this
// layer. The cache is keyed by the connection object, so a closed connection's statements go with it.
import type Database from 'better-sqlite3';
import type { DB } from './connection';

const cache = new WeakMap<DB, Map<string, Database.Statement>>();

/** The prepared statement for `sql` on `db`, compiled on first use. */
export function stmt<Row = unknown>(db: DB, sql: string): Database.Statement<unknown[], Row> {
  let byText = cache.get(db);
  if (!byText) {
    byText = new Map();
    cache.set(db, byText);
  }
  let s = byText.get(sql);
  if (!s) {
    s = db.prepare(sql);
    byText.set(sql, s);
  }
  // Two repositories may share a text, one plucking: pluck() sticks to the statement, so each caller starts from rows.
  if (s.reader) s.pluck(false);
  return s as Database.Statement<unknown[], Row>;
}
