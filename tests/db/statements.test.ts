// stmt(db, sql): one prepared statement per connection and text, shared by every repository that
// uses the text, so a mode one caller sets (pluck) must not leak into the next caller's rows.
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { stmt } from '../../src/core/db/statements';
import { tempWorkspace } from '../helpers/workspace';

describe('stmt', () => {
  it('returns the same statement per connection and text, and rows after another caller plucked it', () => {
    const opened = openWorkspaceDatabase(tempWorkspace());
    const db = opened.db;
    try {
      const sql = "SELECT 1 AS one, 'a' AS letter";
      expect(stmt(db, sql)).toBe(stmt(db, sql));
      expect(stmt(db, sql).pluck().get()).toBe(1);
      expect(stmt(db, sql).get()).toEqual({ one: 1, letter: 'a' });
      // Statements that return no data cannot pluck; they still come back usable.
      expect(stmt(db, 'CREATE TEMP TABLE IF NOT EXISTS planted (x INTEGER)').run().changes).toBe(0);
      expect(stmt(db, 'CREATE TEMP TABLE IF NOT EXISTS planted (x INTEGER)').run().changes).toBe(0);
    } finally {
      db.close();
    }
  });
});
