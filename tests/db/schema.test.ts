import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { listDecisionsPlanSql } from '../../src/core/gate';
import { listSessionsPlanSql } from '../../src/core/sessions';
import { encodeCursor } from '../../src/core/db/paging';
import { tempWorkspace } from '../helpers/workspace';

const TABLES = [
  'sessions',
  'conversation_turns',
  'conversation_contexts',
  'memory_gate_decisions',
  'file_snapshots',
  'write_guardian_audit',
  'rollbacks',
  'behavior_corrections',
  'dataset_samples',
  'dataset_exports',
  'exclusions',
  'turns_fts',
  'decisions_fts',
];
const VIEWS = ['memory_gate_stats', 'pending_review_samples', 'excluded_sessions'];

function fresh() {
  const ws = tempWorkspace();
  const { db } = openWorkspaceDatabase(ws);
  db.prepare("INSERT INTO sessions (id, channel_id, created_at, last_activity_at) VALUES ('s1', 'discord', 1, 1)").run();
  db.prepare(
    "INSERT INTO conversation_turns (id, session_id, turn_number, user_message_content, agent_message_content, created_at) VALUES ('t1', 's1', 0, 'hi', 'hello', 2)",
  ).run();
  return { ws, db };
}

const plan = (db: Database.Database, sql: string, params: Record<string, unknown>) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as Array<{ detail: string }>).map((r) => r.detail);

describe('schema of seed 000', () => {
  it('has every table and view, STRICT, with the configured pragmas', () => {
    const { db } = fresh();
    const names = (type: string) => db.prepare('SELECT name FROM sqlite_schema WHERE type = ?').pluck().all(type) as string[];
    for (const t of TABLES) expect(names('table')).toContain(t);
    for (const v of VIEWS) expect(names('view')).toContain(v);
    for (const v of VIEWS) expect(() => db.prepare(`SELECT * FROM ${v} LIMIT 1`).all()).not.toThrow();
    const strict = db.prepare("SELECT name FROM pragma_table_list WHERE strict = 1 AND schema = 'main'").pluck().all() as string[];
    for (const t of TABLES.filter((t) => !t.endsWith('_fts'))) expect(strict).toContain(t);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    db.close();
  });

  it('rejects bad rows: decision enum, missing foreign key, file name, non-JSON metadata, negative time, bad status', () => {
    const { db } = fresh();
    const bad = (sql: string, pattern: RegExp) => expect(() => db.prepare(sql).run(), sql).toThrow(pattern);
    bad(
      "INSERT INTO memory_gate_decisions (id, turn_id, session_id, decision, reason, llm_model, created_at) VALUES ('d', 't1', 's1', 'MAYBE', 'r', 'm', 3)",
      /CHECK/,
    );
    bad(
      "INSERT INTO memory_gate_decisions (id, turn_id, session_id, decision, reason, llm_model, created_at) VALUES ('d', 'nope', 's1', 'NO_WRITE', 'r', 'm', 3)",
      /FOREIGN KEY/,
    );
    bad(
      "INSERT INTO conversation_turns (id, session_id, turn_number, user_message_content, agent_message_content, created_at) VALUES ('t2', 'ghost', 0, 'a', 'b', 1)",
      /FOREIGN KEY/,
    );
    bad(
      "INSERT INTO conversation_turns (id, session_id, turn_number, user_message_content, agent_message_content, created_at) VALUES ('t2', 's1', 0, 'a', 'b', 1)",
      /UNIQUE/,
    );
    bad(
      "INSERT INTO file_snapshots (id, file_name, content, content_hash, created_at) VALUES ('f', 'NOTES.md', 'x', '" +
        'a'.repeat(64) +
        "', 1)",
      /CHECK/,
    );
    bad("INSERT INTO sessions (id, channel_id, created_at, last_activity_at, metadata) VALUES ('s2', 'c', 1, 1, '{not json')", /CHECK/);
    bad("INSERT INTO sessions (id, channel_id, created_at, last_activity_at) VALUES ('s3', 'c', -1, 1)", /CHECK/);
    bad(
      "INSERT INTO conversation_contexts (turn_id, role, message, timestamp, sequence_number) VALUES ('t1', 'system', 'x', 1, 0)",
      /CHECK/,
    );
    bad(
      "INSERT INTO write_guardian_audit (id, target_file, status, source, created_at) VALUES ('a', 'USER.md', 'done', 'external', 1)",
      /CHECK/,
    );
    // A plugin write must name its decision.
    bad(
      "INSERT INTO write_guardian_audit (id, target_file, status, source, created_at) VALUES ('a', 'USER.md', 'written', 'plugin', 1)",
      /CHECK/,
    );
    bad(
      "INSERT INTO conversation_turns (id, session_id, turn_number, user_message_content, agent_message_content, created_at) VALUES ('t3', 's1', 1, X'01', 'b', 1)",
      /cannot store BLOB/,
    );
    expect(db.prepare('SELECT count(*) FROM memory_gate_decisions').pluck().get()).toBe(0);
    db.close();
  });

  it('keeps the FTS indexes in sync with inserts, updates and deletes', () => {
    const { db } = fresh();
    const hits = (q: string) => db.prepare('SELECT count(*) FROM turns_fts WHERE turns_fts MATCH ?').pluck().get(q);
    expect(hits('"hello"')).toBe(1);
    db.prepare("UPDATE conversation_turns SET agent_message_content = '早上好，今天开会' WHERE id = 't1'").run();
    expect(hits('"hello"')).toBe(0);
    expect(hits('"今天开"')).toBe(1);
    db.prepare("DELETE FROM conversation_turns WHERE id = 't1'").run();
    expect(hits('"今天开"')).toBe(0);
    db.close();
  });

  it('pages gate list queries through indexes: by session+time, decision, time range, turn; sessions by activity', () => {
    const { ws, db } = fresh();
    const ctx = { db, workspaceDir: ws };
    const cursor = encodeCursor([5_000, 10]);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ sessionId: 's1' }, /SEARCH d USING INDEX idx_decisions_session_time \(session_id=\?\)/],
      [{ sessionId: 's1', cursor }, /SEARCH d USING INDEX idx_decisions_session_time \(session_id=\? AND created_at<\?\)/],
      [{ decision: 'UPDATE_USER' }, /SEARCH d USING INDEX idx_decisions_decision_time \(decision=\?\)/],
      [{ decision: 'UPDATE_USER', cursor }, /SEARCH d USING INDEX idx_decisions_decision_time \(decision=\? AND created_at<\?\)/],
      [{ since: 1000, until: 9000 }, /SEARCH d USING INDEX idx_decisions_created \(created_at>\? AND created_at<\?\)/],
      [{}, /SCAN d USING INDEX idx_decisions_created/],
      [{ turnId: 't1' }, /SEARCH d USING INDEX idx_decisions_turn \(turn_id=\?\)/],
    ];
    for (const [filters, expected] of cases) {
      const { sql, params } = listDecisionsPlanSql(ctx, filters);
      const lines = plan(db, sql, params);
      expect(lines.join('\n'), JSON.stringify(filters)).toMatch(expected);
      // The outer query never sorts: rows come in index order (the write-status subquery probes idx_audit_decision).
      expect(lines.some((l) => /^SCAN d$/.test(l) || /^SCAN t$/.test(l))).toBe(false);
      if (!filters.turnId) expect(lines.filter((l) => l.includes('TEMP B-TREE'))).toEqual([]);
      expect(lines.join('\n')).toMatch(/SEARCH a USING INDEX idx_audit_decision/);
    }
    const s = listSessionsPlanSql({ cursor: encodeCursor([5, 1]) });
    expect(plan(db, s.sql, s.params).join('\n')).toMatch(/SEARCH s USING INDEX idx_sessions_activity \(last_activity_at<\?\)/);
    db.close();
  });
});
