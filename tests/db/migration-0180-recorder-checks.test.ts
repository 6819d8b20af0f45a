// Migration 0180 rebuilds the tables the recorder and the log importers write per decision and per write
// (memory_gate_decisions, file_snapshots, file_state, memory_versions, write_guardian_audit) with their
// IN lists as OR chains (issue 16: an IN list of more than two constants built an ephemeral index on every
// insert). Rows of a generated demo workspace must come through with their rowids (decisions_fts is keyed
// by decisions' seq, memory_versions by the audit's rowid); the schema must stay as it was but for the
// CHECK text; and the old and new CHECKs must accept and refuse the same values.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { latestVersion } from '../../src/core/db/migrate';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { generateDemoWorkspace } from '../../src/core/demo';
import { emptyDatabase, updateToVersion } from '../helpers/db';
import { tempWorkspace } from '../helpers/workspace';

type Db = Database.Database;
type Row = Record<string, unknown>;

const REBUILT = ['memory_gate_decisions', 'file_snapshots', 'file_state', 'memory_versions', 'write_guardian_audit'];
const VIEWS = ['memory_gate_stats', 'pending_review_samples'];
// Seeded in an order their foreign keys accept; file_state is filled by the audit trigger.
const SEEDED = ['sessions', 'conversation_turns', 'memory_gate_decisions', 'file_snapshots', 'write_guardian_audit', 'memory_versions'];

/** Rows with their rowid (tables whose rowid is a seq column carry it in seq). */
function rowsOf(db: Db, table: string): Row[] {
  return db.prepare(`SELECT rowid AS _rowid, * FROM ${table} ORDER BY rowid`).all() as Row[];
}

/** Inserts rows with their rowids, only the columns the table has at the database's version. */
function seed(db: Db, table: string, rows: Row[]): void {
  const known = db.prepare('SELECT name, pk FROM pragma_table_info(?)').all(table) as { name: string; pk: number }[];
  const cols = known.map((c) => c.name).filter((c) => rows.length && c in rows[0]!);
  const rowidIsColumn = db.prepare(`SELECT count(*) FROM pragma_table_info(?) WHERE pk = 1 AND type = 'INTEGER'`).pluck().get(table) === 1;
  const names = rowidIsColumn ? cols : ['rowid', ...cols];
  const insert = db.prepare(`INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`);
  db.transaction(() => {
    for (const r of rows) insert.run(...(rowidIsColumn ? [] : [r._rowid]), ...cols.map((c) => r[c]));
  })();
}

/** The CREATE statement without its CHECK constraints, comments, name quotes and layout. */
function withoutChecks(sql: string): string {
  let s = sql.replace(/--[^\n]*/g, '');
  for (let at = s.search(/\bCHECK\s*\(/); at >= 0; at = s.search(/\bCHECK\s*\(/)) {
    let depth = 0;
    let end = s.indexOf('(', at);
    for (; end < s.length; end++) {
      if (s[end] === '(') depth++;
      else if (s[end] === ')' && --depth === 0) break;
    }
    s = s.slice(0, at) + s.slice(end + 1);
  }
  return s
    .replace(/"/g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([(),])\s*/g, '$1')
    .replace(/,\)/g, ')')
    .trim();
}

interface SchemaRow {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

function schemaOf(db: Db): SchemaRow[] {
  return db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid').all() as SchemaRow[];
}

describe('migration 0180: OR chains instead of IN lists on the recorder tables', () => {
  it('keeps every row and rowid, the indexes, triggers, views and the full-text index', () => {
    const dir = tempWorkspace();
    generateDemoWorkspace(dir, { seed: 'm0180', sessions: 6, turnsPerSession: 60 });
    const source = openWorkspaceDatabase(dir).db;
    const rows = Object.fromEntries(SEEDED.map((t) => [t, rowsOf(source, t)]));
    source.close();
    expect(rows.write_guardian_audit!.some((a) => a.status === 'written')).toBe(true);
    expect(rows.memory_versions!.length).toBeGreaterThan(10);

    const { db, file } = emptyDatabase();
    updateToVersion(db, 179);
    for (const t of SEEDED) seed(db, t, rows[t]!);
    // gaps in the rowids, as deletions leave: the copy must keep the rowids, not renumber them
    const noWrite = db
      .prepare("SELECT id FROM memory_gate_decisions WHERE decision = 'NO_WRITE' ORDER BY seq LIMIT 1 OFFSET 3")
      .pluck()
      .get();
    db.prepare('DELETE FROM memory_gate_decisions WHERE id = ?').run(noWrite);
    const lone = db
      .prepare(
        `SELECT id FROM write_guardian_audit a WHERE status = 'skipped' AND NOT EXISTS (SELECT 1 FROM file_state f WHERE f.audit_id = a.id)
           AND NOT EXISTS (SELECT 1 FROM write_guardian_audit r WHERE r.related_audit_id = a.id) ORDER BY rowid LIMIT 1 OFFSET 2`,
      )
      .pluck()
      .get();
    expect(lone).toBeDefined();
    db.prepare('DELETE FROM write_guardian_audit WHERE id = ?').run(lone);

    const before = Object.fromEntries(REBUILT.map((t) => [t, rowsOf(db, t)]));
    const schemaBefore = schemaOf(db);
    const columnsBefore = REBUILT.map((t) => db.prepare('SELECT * FROM pragma_table_xinfo(?)').all(t));
    const keysBefore = REBUILT.map((t) => db.prepare('SELECT * FROM pragma_foreign_key_list(?)').all(t));
    const statsBefore = db.prepare('SELECT * FROM memory_gate_stats ORDER BY date').all();
    const fts = "SELECT rowid FROM decisions_fts WHERE decisions_fts MATCH 'prefer' ORDER BY rowid";
    const ftsBefore = db.prepare(fts).pluck().all();
    expect(ftsBefore.length).toBeGreaterThan(0);

    // up to 0180 itself: 0181 and 0182 later change dataset tables (their own tests)
    const result = updateToVersion(db, 180, file);
    expect(result.applied).toContain('0180_recorder_checks.sql');

    for (const t of REBUILT) expect(rowsOf(db, t), t).toEqual(before[t]);
    expect(REBUILT.map((t) => db.prepare('SELECT * FROM pragma_table_xinfo(?)').all(t))).toEqual(columnsBefore);
    expect(REBUILT.map((t) => db.prepare('SELECT * FROM pragma_foreign_key_list(?)').all(t))).toEqual(keysBefore);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);

    // The schema is the old one but for the CHECK text: objects of other tables untouched and in their
    // order, each rebuilt table with the same indexes and triggers in the same order, the views as they were.
    const schemaAfter = schemaOf(db);
    const touched = (r: SchemaRow) => REBUILT.includes(r.tbl_name) || VIEWS.includes(r.name);
    expect(schemaAfter.filter((r) => !touched(r))).toEqual(schemaBefore.filter((r) => !touched(r)));
    const plain = (r: SchemaRow) => ({ ...r, sql: r.type === 'table' && r.sql ? withoutChecks(r.sql) : r.sql });
    for (const name of [...REBUILT, ...VIEWS]) {
      const of = (s: SchemaRow[]) => s.filter((r) => r.tbl_name === name).map(plain);
      expect(of(schemaAfter), name).toEqual(of(schemaBefore));
      expect(of(schemaAfter).length, name).toBeGreaterThan(0);
    }
    expect(schemaAfter.filter((r) => VIEWS.includes(r.name)).map((r) => r.name)).toEqual(
      schemaBefore.filter((r) => VIEWS.includes(r.name)).map((r) => r.name),
    );
    for (const t of REBUILT) {
      const sql = schemaAfter.find((r) => r.name === t)!.sql!;
      expect(sql, t).not.toMatch(/ IN \('/);
      expect(sql, t).not.toMatch(/_new\b/);
    }
    // the CHECK-free comparison is not vacuous: it tells two tables apart that differ by a column
    expect(withoutChecks('CREATE TABLE t (a TEXT CHECK (a IN (1, 2)), b INTEGER)')).not.toBe(withoutChecks('CREATE TABLE t (a TEXT)'));

    // the full-text index still matches the decisions by seq, and the views read the rebuilt tables
    db.prepare("INSERT INTO decisions_fts(decisions_fts) VALUES ('integrity-check')").run();
    expect(db.prepare(fts).pluck().all()).toEqual(ftsBefore);
    expect(db.prepare('SELECT * FROM memory_gate_stats ORDER BY date').all()).toEqual(statsBefore);
    expect(db.prepare('SELECT count(*) FROM pending_review_samples').pluck().get()).toBe(0);

    // the triggers are back: a written audit moves file_state; deleting a versioned audit logs a chain event
    const at = 4_000_000_000_000;
    db.prepare(
      `INSERT INTO write_guardian_audit (id, target_file, diff, status, source, created_at)
       VALUES ('after-0180', 'SOUL.md', '@@ -0,0 +1 @@\n+calm', 'written', 'external', ?)`,
    ).run(at);
    expect(db.prepare("SELECT audit_id, observed_at FROM file_state WHERE file_name = 'SOUL.md'").get()).toEqual({
      audit_id: 'after-0180',
      observed_at: at,
    });
    const versioned = db.prepare('SELECT audit_id FROM memory_versions ORDER BY rowid LIMIT 1').pluck().get() as string;
    db.prepare('DELETE FROM write_guardian_audit WHERE id = ?').run(versioned);
    expect(db.prepare('SELECT count(*) FROM memory_chain_events WHERE id = ?').pluck().get(`deleted:${versioned}`)).toBe(1);
    const decision = before.memory_gate_decisions![0]!;
    db.prepare("UPDATE memory_gate_decisions SET reason = 'zebra crossing' WHERE id = ?").run(decision.id);
    expect(db.prepare("SELECT rowid FROM decisions_fts WHERE decisions_fts MATCH 'zebra'").pluck().all()).toEqual([decision.seq]);
    db.close();
  });

  it('accepts and refuses exactly the values the IN lists did, without an ephemeral index per insert', () => {
    const open = (version: number) => {
      const { db } = emptyDatabase();
      updateToVersion(db, version);
      db.exec(`
        INSERT INTO sessions (id, channel_id, created_at, last_activity_at) VALUES ('s', 'c', 1, 1);
        INSERT INTO conversation_turns (id, session_id, turn_number, user_message_content, agent_message_content, created_at)
          VALUES ('t', 's', 0, 'u', 'a', 1);`);
      return db;
    };
    const oldDb = open(179);
    const newDb = open(latestVersion());
    const files = ['MEMORY.md', 'USER.md', 'SOUL.md', 'IDENTITY.md', 'TOOLS.md'];
    const fileBad = ['memory.md', 'MEMORY', 'NOTES.md', ' USER.md', 'SOUL.md ', '', 'MEMORY.md\u0000'];
    const hash = (i: number) => i.toString(16).padStart(64, '0');
    // each probe inserts one value into one column, with everything else valid
    const probes: { table: string; values: string[]; insert: (db: Db, v: string, i: number) => unknown }[] = [
      {
        table: 'memory_gate_decisions.decision',
        values: [
          'NO_WRITE',
          'UPDATE_MEMORY',
          'UPDATE_USER',
          'UPDATE_SOUL',
          'UPDATE_IDENTITY',
          'UPDATE_TOOLS',
          'no_write',
          'UPDATE_',
          'NOTE',
          '',
        ],
        insert: (db, v, i) =>
          db
            .prepare(
              "INSERT INTO memory_gate_decisions (id, turn_id, session_id, decision, reason, llm_model, created_at) VALUES (?, 't', 's', ?, 'r', 'm', 1)",
            )
            .run(`d${i}`, v),
      },
      {
        table: 'file_snapshots.file_name',
        values: [...files, ...fileBad],
        insert: (db, v, i) =>
          db
            .prepare("INSERT INTO file_snapshots (id, file_name, content, content_hash, created_at) VALUES (?, ?, 'c', ?, 1)")
            .run(`f${i}`, v, hash(i)),
      },
      {
        table: 'file_state.file_name',
        values: [...files, ...fileBad],
        insert: (db, v) => db.prepare('INSERT INTO file_state (file_name, observed_at) VALUES (?, 1)').run(v),
      },
      {
        table: 'memory_versions.file_name',
        values: [...files, ...fileBad],
        insert: (db, v, i) =>
          db
            .prepare(
              "INSERT INTO memory_versions (file_name, seq, audit_id, audit_rowid, prev_link, link, created_at) VALUES (?, 1, ?, 1, '', ?, 1)",
            )
            .run(v, `v${i}`, hash(i)),
      },
      {
        table: 'write_guardian_audit.target_file',
        values: [...files, ...fileBad],
        insert: (db, v, i) =>
          db
            .prepare(
              "INSERT INTO write_guardian_audit (id, target_file, status, source, created_at) VALUES (?, ?, 'refused', 'external', 1)",
            )
            .run(`a${i}`, v),
      },
      {
        table: 'write_guardian_audit.status',
        values: ['written', 'refused', 'failed', 'skipped', 'rolled_back', 'Written', 'rolled back', 'ok', ''],
        insert: (db, v, i) =>
          db
            .prepare(
              "INSERT INTO write_guardian_audit (id, target_file, status, source, created_at) VALUES (?, 'USER.md', ?, 'external', 1)",
            )
            .run(`s${i}`, v),
      },
      {
        table: 'write_guardian_audit.source',
        values: ['external', 'rollback', 'retry', 'consolidation', 'plugin', 'Plugin', 'import', 'retry ', ''],
        insert: (db, v, i) =>
          db
            .prepare(
              "INSERT INTO write_guardian_audit (id, target_file, status, source, created_at) VALUES (?, 'USER.md', 'refused', ?, 1)",
            )
            .run(`o${i}`, v),
      },
    ];
    const outcome = (db: Db, probe: (typeof probes)[number], v: string, i: number) => {
      try {
        probe.insert(db, v, i);
        return 'ok';
      } catch (e) {
        return (e as Error).message;
      }
    };
    let i = 0;
    for (const probe of probes) {
      for (const v of probe.values) {
        const n = i++;
        const was = outcome(oldDb, probe, v, n);
        const is = outcome(newDb, probe, v, n);
        expect(is === 'ok', `${probe.table} = ${JSON.stringify(v)}: ${is}`).toBe(was === 'ok');
        if (was !== 'ok') expect(is, `${probe.table} = ${JSON.stringify(v)}`).toMatch(/CHECK constraint/);
      }
    }
    // every list value is accepted and the rest refused (the probes above are not vacuous): 'plugin'
    // without a decision is refused by the table CHECK, in both versions
    const accepted = (table: string) => newDb.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
    expect([accepted('memory_gate_decisions'), accepted('file_snapshots'), accepted('file_state'), accepted('memory_versions')]).toEqual([
      6, 5, 5, 5,
    ]);
    expect(accepted('write_guardian_audit')).toBe(5 + 5 + 4);
    // an UPDATE to a value outside the list is refused too
    const update = (status: string) =>
      newDb.prepare('UPDATE write_guardian_audit SET status = ? WHERE rowid = (SELECT min(rowid) FROM write_guardian_audit)').run(status)
        .changes;
    expect(update('failed')).toBe(1);
    expect(() => update('done')).toThrow(/CHECK constraint/);

    // the reason for the rewrite: the recorder's inserts no longer build an ephemeral index per row
    const ephemeral = (db: Db, sql: string) =>
      (db.prepare(`EXPLAIN ${sql}`).all(...Array((sql.match(/\?/g) ?? []).length).fill(null)) as { opcode: string }[]).filter(
        (o) => o.opcode === 'OpenEphemeral',
      ).length;
    const inserts = [
      `INSERT INTO memory_gate_decisions (id, turn_id, session_id, decision, reason, candidate_fact, llm_model,
        llm_latency_ms, prompt_tokens, completion_tokens, raw_response, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      'INSERT INTO file_snapshots (id, file_name, content, content_hash, created_at) VALUES (?, ?, ?, ?, ?)',
      'INSERT INTO memory_versions (file_name, seq, audit_id, audit_rowid, content_hash, prev_link, link, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      `INSERT INTO write_guardian_audit (id, decision_id, turn_id, session_id, target_file, candidate_fact,
        before_snapshot_id, after_snapshot_id, diff, lines_added, lines_removed, lines_modified, status, reason,
        llm_model, llm_latency_ms, agent_steps, source, related_audit_id, metadata, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ];
    expect(inserts.map((s) => ephemeral(oldDb, s))).toEqual([1, 1, 1, 4]);
    expect(inserts.map((s) => ephemeral(newDb, s))).toEqual([0, 0, 0, 0]);
    oldDb.close();
    newDb.close();
  });
});
