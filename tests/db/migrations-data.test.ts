// Migrations move real data: a database seeded at an older schema keeps every row through the later
// migrations, including table rebuilds (SQLite cannot alter a CHECK, so 0100 copies dataset_exports
// into a new table). Uses the Signal-style helpers in tests/helpers/db.ts.
import { describe, expect, it } from 'vitest';
import { latestVersion } from '../../src/main/db/migrate';
import { emptyDatabase, explain, getTableData, insertData, updateToVersion } from '../helpers/db';

const EXPORTS = [
  {
    id: 'exp-1', export_name: 'first', export_format: 'sharegpt', sample_types: ['memory_gate'], filters: { minScore: 0.7 },
    total_samples: 120, approved_samples: 100, rejected_samples: 20, train_samples: 90, validation_samples: 10,
    avg_quality_score: 0.82, include_pii: 0, file_path: 'exports/first.jsonl', file_size_bytes: 40_960,
    checksum: 'c'.repeat(64), files: [{ name: 'first.jsonl', bytes: 40_960 }], exported_by: 'curator', exported_at: 1_700_000_000_000,
  },
  {
    id: 'exp-2', export_name: 'second', export_format: 'openai-dpo', sample_types: ['write_guardian', 'memory_gate'], filters: null,
    total_samples: 5, approved_samples: 5, rejected_samples: 0, train_samples: 5, validation_samples: 0,
    avg_quality_score: null, include_pii: 1, file_path: 'exports/second.jsonl', file_size_bytes: null,
    checksum: null, files: null, exported_by: null, exported_at: 1_700_000_500_000,
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
    expect(() => insertData(db, 'dataset_exports', [{ ...EXPORTS[0], id: 'exp-kto-early', export_format: 'kto' }])).toThrow(/CHECK constraint/);

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
