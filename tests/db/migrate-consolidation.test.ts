// Migration 0160 rebuilds write_guardian_audit (a CHECK cannot be altered) with foreign keys off:
// the rows, the rows that reference them, the triggers and the view must all come through, and a
// consolidation write recorded before it as an "external" one becomes a consolidation write.
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/core/db/migrate';
import { tempWorkspace } from '../helpers/workspace';

const before = loadMigrations().filter((m) => m.version < 160);

function seed(db: Database.Database): void {
  db.exec(`
    INSERT INTO sessions (id, channel_id, created_at, last_activity_at) VALUES ('s1', 'c', 1, 1);
    INSERT INTO conversation_turns (id, session_id, turn_number, user_message_content, agent_message_content, created_at)
      VALUES ('t1', 's1', 0, 'hi', 'hello', 1);
    INSERT INTO memory_gate_decisions (id, turn_id, session_id, decision, reason, candidate_fact, llm_model, created_at)
      VALUES ('d1', 't1', 's1', 'UPDATE_USER', 'r', 'fact', 'm', 1);
    INSERT INTO file_snapshots (id, file_name, content, content_hash, created_at) VALUES ('sn1', 'USER.md', '- fact', '${'a'.repeat(64)}', 1);
    INSERT INTO write_guardian_audit (id, decision_id, turn_id, session_id, target_file, after_snapshot_id, status, source, created_at)
      VALUES ('a1', 'd1', 't1', 's1', 'USER.md', 'sn1', 'written', 'plugin', 2);
    INSERT INTO write_guardian_audit (id, target_file, status, source, metadata, created_at)
      VALUES ('a2', 'MEMORY.md', 'written', 'external', '{"origin":"consolidation"}', 3);
    INSERT INTO write_guardian_audit (id, target_file, status, source, created_at) VALUES ('a3', 'SOUL.md', 'written', 'external', 4);
    INSERT INTO behavior_corrections (id, audit_id, original_status, corrected_status, correction_reason, corrected_by, corrected_at)
      VALUES ('c1', 'a1', 'written', 'refused', 'not lasting', 'lead', 5);
  `);
}

describe('migration 0160: consolidation writes have their own source', () => {
  it('rebuilds the audit table with every row, reference, trigger and view intact', () => {
    const file = path.join(tempWorkspace(), 'x.db');
    const db = new Database(file);
    db.pragma('foreign_keys = ON');
    migrate(db, { file, migrations: before });
    seed(db);
    const result = migrate(db, { file });
    expect(result.applied).toContain('0160_consolidation_source.sql');

    const sources = db.prepare('SELECT id, source FROM write_guardian_audit ORDER BY id').all();
    expect(sources).toEqual([
      { id: 'a1', source: 'plugin' },
      { id: 'a2', source: 'consolidation' },
      { id: 'a3', source: 'external' },
    ]);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.prepare("SELECT audit_id FROM behavior_corrections WHERE id = 'c1'").pluck().get()).toBe('a1');
    const schema = db
      .prepare(
        "SELECT type, name FROM sqlite_schema WHERE tbl_name = 'write_guardian_audit' AND type IN ('trigger', 'index') ORDER BY name",
      )
      .all() as { name: string }[];
    expect(schema.map((s) => s.name)).toEqual(
      expect.arrayContaining(['trg_audit_moves_file_state', 'trg_health_audit_deleted', 'idx_audit_decision', 'idx_audit_related']),
    );
    expect(db.prepare('SELECT count(*) FROM pending_review_samples').pluck().get()).toBe(0);

    // the file-state trigger still moves state forward, and the new source is accepted
    db.prepare(
      "INSERT INTO write_guardian_audit (id, target_file, after_snapshot_id, status, source, created_at) VALUES ('a4', 'USER.md', 'sn1', 'written', 'consolidation', 9)",
    ).run();
    expect(db.prepare("SELECT audit_id FROM file_state WHERE file_name = 'USER.md'").pluck().get()).toBe('a4');
    // foreign keys are enforced again after the migration
    expect(() =>
      db
        .prepare(
          "INSERT INTO behavior_corrections (id, audit_id, original_status, corrected_status, correction_reason, corrected_by, corrected_at) VALUES ('c2', 'nope', 'written', 'refused', 'x', 'y', 1)",
        )
        .run(),
    ).toThrow(/FOREIGN KEY/);
    db.close();
  });
});
