// Migrations move real data: a database seeded at an older schema keeps every row through the later
// migrations, including table rebuilds (SQLite cannot alter a CHECK, so 0100 copies dataset_exports
// into a new table), and 0030 derives its baseline from the writes already recorded. Uses the
// Signal-style helpers in tests/helpers/db.ts. (0020 adds full-text indexes without filling them from
// existing turns; that never mattered because 0010 and 0020 shipped together, but a migration that
// rebuilds an index must fill it.)
import { describe, expect, it } from 'vitest';
import { latestVersion } from '../../src/core/db/migrate';
import { emptyDatabase, explain, getTableData, insertData, updateToVersion } from '../helpers/db';

const EXPORTS = [
  {
    id: 'exp-1',
    export_name: 'first',
    export_format: 'sharegpt',
    sample_types: ['memory_gate'],
    filters: { minScore: 0.7 },
    total_samples: 120,
    approved_samples: 100,
    rejected_samples: 20,
    train_samples: 90,
    validation_samples: 10,
    avg_quality_score: 0.82,
    include_pii: 0,
    file_path: 'exports/first.jsonl',
    file_size_bytes: 40_960,
    checksum: 'c'.repeat(64),
    files: [{ name: 'first.jsonl', bytes: 40_960 }],
    exported_by: 'curator',
    exported_at: 1_700_000_000_000,
  },
  {
    id: 'exp-2',
    export_name: 'second',
    export_format: 'openai-dpo',
    sample_types: ['write_guardian', 'memory_gate'],
    filters: null,
    total_samples: 5,
    approved_samples: 5,
    rejected_samples: 0,
    train_samples: 5,
    validation_samples: 0,
    avg_quality_score: null,
    include_pii: 1,
    file_path: 'exports/second.jsonl',
    file_size_bytes: null,
    checksum: null,
    files: null,
    exported_by: null,
    exported_at: 1_700_000_500_000,
  },
];

describe('migrating data from 0090 to the latest schema', () => {
  it('keeps every dataset export through the table rebuild of 0100, and the rebuilt table takes the new formats', () => {
    const { db, file } = emptyDatabase();
    updateToVersion(db, 90);
    insertData(db, 'dataset_exports', EXPORTS);
    const before = getTableData(db, 'dataset_exports');
    expect(before).toHaveLength(2);
    // The 0090 schema refuses formats that came later.
    expect(() => insertData(db, 'dataset_exports', [{ ...EXPORTS[0], id: 'exp-kto-early', export_format: 'kto' }])).toThrow(
      /CHECK constraint/,
    );

    const result = updateToVersion(db, latestVersion(), file);
    expect(result.applied).toContain('0100_dataset_trust.sql');
    expect(result.backupPath, 'a database holding data is backed up before migrating').toBeTruthy();
    expect(db.pragma('user_version', { simple: true })).toBe(latestVersion());

    const after = getTableData(db, 'dataset_exports');
    expect(after.map((row) => row.summary)).toEqual([null, null]);
    expect(after.map(({ summary: _summary, ...rest }) => rest)).toEqual(before);

    insertData(db, 'dataset_exports', [{ ...EXPORTS[0], id: 'exp-kto', export_format: 'kto', summary: { labels: { desirable: 3 } } }]);
    expect(() => insertData(db, 'dataset_exports', [{ ...EXPORTS[0], id: 'exp-bad', export_format: 'bogus' }])).toThrow(/CHECK constraint/);
    // The index dropped with the old table is back: the history lists newest exports without a sort.
    expect(explain(db, 'SELECT id FROM dataset_exports ORDER BY exported_at DESC LIMIT 20')).toMatch(/USING INDEX idx_exports_at/);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    db.close();
  });
});

/** A small recorded workspace at any schema from 0010 on: a session, a turn, a decision, two writes, a correction, a sample. */
function seedRecorded(db: ReturnType<typeof emptyDatabase>['db']): void {
  insertData(db, 'sessions', [{ id: 's1', channel_id: 'c', created_at: 1, last_activity_at: 1 }]);
  insertData(db, 'conversation_turns', [
    {
      id: 't1',
      session_id: 's1',
      turn_number: 0,
      user_message_content: 'I moved to Lisbon',
      agent_message_content: 'noted',
      created_at: 1,
    },
  ]);
  insertData(db, 'memory_gate_decisions', [
    {
      id: 'd1',
      turn_id: 't1',
      session_id: 's1',
      decision: 'UPDATE_USER',
      reason: 'a lasting fact',
      candidate_fact: 'lives in Lisbon',
      llm_model: 'm',
      created_at: 1,
    },
  ]);
  insertData(db, 'file_snapshots', [
    { id: 'sn1', file_name: 'USER.md', content: '- lives in Porto', content_hash: '1'.repeat(64), created_at: 1 },
    { id: 'sn2', file_name: 'USER.md', content: '- lives in Lisbon', content_hash: '2'.repeat(64), created_at: 2 },
  ]);
  insertData(db, 'write_guardian_audit', [
    { id: 'a1', target_file: 'USER.md', after_snapshot_id: 'sn1', status: 'written', source: 'external', created_at: 2 },
    {
      id: 'a2',
      decision_id: 'd1',
      turn_id: 't1',
      session_id: 's1',
      target_file: 'USER.md',
      before_snapshot_id: 'sn1',
      after_snapshot_id: 'sn2',
      status: 'written',
      source: 'plugin',
      created_at: 5,
    },
    { id: 'a3', target_file: 'USER.md', status: 'refused', source: 'external', created_at: 9 },
    { id: 'a4', target_file: 'MEMORY.md', diff: '-gone', status: 'written', source: 'external', created_at: 3 },
  ]);
  insertData(db, 'behavior_corrections', [
    {
      id: 'c1',
      audit_id: 'a2',
      original_status: 'written',
      corrected_status: 'refused',
      correction_reason: 'not lasting',
      corrected_by: 'lead',
      corrected_at: 6,
    },
  ]);
  insertData(db, 'dataset_samples', [
    {
      id: 'x1',
      sample_type: 'memory_gate_positive',
      decision_id: 'd1',
      session_id: 's1',
      content: { text: 'lives in Lisbon' },
      source_key: 'gate:d1',
      created_at: 7,
    },
  ]);
}

/** The primary keys of every table's rows (a count where a table has none; fts and sqlite internals aside). */
function rowIdsByTable(db: ReturnType<typeof emptyDatabase>['db']): Record<string, string[]> {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%fts%' ORDER BY name")
    .pluck()
    .all() as string[];
  const keyOf = (t: string) => db.prepare('SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk').pluck().all(t) as string[];
  return Object.fromEntries(
    tables.map((t) => {
      const pk = keyOf(t);
      const rows = pk.length
        ? getTableData(db, t).map((r) => pk.map((c) => String(r[c])).join('|'))
        : [`${getTableData(db, t).length} rows`];
      return [t, rows];
    }),
  );
}

describe('every migration after 0090 keeps the recorded data', () => {
  it('no row of any table is lost between 0090 and the latest schema', () => {
    const { db } = emptyDatabase();
    updateToVersion(db, 90);
    seedRecorded(db);
    insertData(db, 'exclusions', [{ id: 'e1', kind: 'session', value: 's-other', created_at: 8 }]);
    const before = rowIdsByTable(db);
    updateToVersion(db, latestVersion());
    const after = rowIdsByTable(db);
    for (const [table, ids] of Object.entries(before)) expect(after[table], `table ${table} after migrating`).toEqual(ids);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    db.close();
  });
});

describe('migration 0030: the file-state baseline of a database that already holds writes', () => {
  it('starts from the newest written content of each file, and the trigger never moves it backwards', () => {
    const { db } = emptyDatabase();
    updateToVersion(db, 25);
    seedRecorded(db);
    updateToVersion(db, 30);
    const state = getTableData(db, 'file_state');
    expect(state).toEqual([
      // A known deletion (a diff, no snapshot) is a state too: the file is absent.
      { file_name: 'MEMORY.md', snapshot_id: null, content_hash: null, audit_id: 'a4', observed_at: 3 },
      // The newest written audit wins over the older write and the later refusal.
      { file_name: 'USER.md', snapshot_id: 'sn2', content_hash: '2'.repeat(64), audit_id: 'a2', observed_at: 5 },
    ]);
    // An import of older history after the migration does not replace the baseline.
    insertData(db, 'write_guardian_audit', [
      { id: 'a0', target_file: 'USER.md', after_snapshot_id: 'sn1', status: 'written', source: 'external', created_at: 1 },
    ]);
    expect(getTableData(db, 'file_state').find((r) => r.file_name === 'USER.md')?.audit_id).toBe('a2');
    db.close();
  });
});

describe('db test helpers', () => {
  it('updateToVersion stops at the asked version and refuses a number no migration has', () => {
    const { db } = emptyDatabase();
    updateToVersion(db, 20);
    expect(db.pragma('user_version', { simple: true })).toBe(20);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'dataset_gate_corrections'").get()).toBeUndefined();
    expect(() => updateToVersion(db, 21)).toThrow(/no migration numbered 21/);
    expect(() => updateToVersion(db, 10)).toThrow(/only go forward/);
    db.close();
  });

  it('insertData names a column the schema at that version does not have', () => {
    const { db } = emptyDatabase();
    updateToVersion(db, 90);
    expect(() => insertData(db, 'dataset_exports', [{ ...EXPORTS[0], summary: {} }])).toThrow(/dataset_exports has no column summary/);
    expect(() => insertData(db, 'no_such_table', [{ id: 1 }])).toThrow(/no table no_such_table at schema version 90/);
    db.close();
  });

  it('explain shows a full scan where no index serves the filter', () => {
    const { db } = emptyDatabase();
    updateToVersion(db, 90);
    expect(explain(db, 'SELECT id FROM dataset_exports WHERE export_name = ?', 'first')).toMatch(/^SCAN dataset_exports/);
    db.close();
  });
});
