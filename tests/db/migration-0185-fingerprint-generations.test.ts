// Migration 0185 puts a generation before the fingerprint prefix in dedupe's exact index (issue 16: each
// collection transaction rewrote pages all over the random-key index). A collection stores a row in the
// generation of the table's last rowid, never below the last one; the lookup asks the generations from
// the first and answers with the first stored copy. These tests hold the migration to the rows it
// found, the lookup to that answer and its plan, and a collection that crosses into a new generation to
// the samples it would have stored without one.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../bench/dataset/workspace';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { latestVersion } from '../../src/core/db/migrate';
import {
  FINGERPRINT_GEN_BITS,
  NEXT_FINGERPRINT_GEN,
  findSampleByFingerprint,
  iterateFingerprints,
} from '../../src/core/db/repositories/collectDedupe';
import { collectSamples } from '../../src/core/dataset';
import { collectedRows } from '../helpers/collectedRows';
import { emptyDatabase, explain, getTableData, insertKnownColumns, recordPrepared, updateToVersion } from '../helpers/db';
import { tempWorkspace } from '../helpers/workspace';

type Row = Record<string, unknown>;
const DB_FILE = path.join('.openclaw-reflection', 'reflection.db');

/** The bench workspace's decision times, split in the middle: a collection in two runs. */
function middleTime(db: DB): number {
  const times = db.prepare('SELECT created_at FROM memory_gate_decisions ORDER BY created_at').pluck().all() as number[];
  return times[Math.floor(times.length / 2)]!;
}

const samplesBySource = (db: DB) =>
  db.prepare('SELECT source_key, id, cluster_id, fingerprint, labels, sample_type FROM dataset_samples ORDER BY source_key').all() as Row[];

describe('migration 0185: fingerprint generations', () => {
  it('keeps every row in generation 0, and the lookup answers with the first stored copy of any generation', async () => {
    const rows = await collectedRows(300);
    const { db, file } = emptyDatabase();
    updateToVersion(db, 184);
    for (const [table, r] of Object.entries(rows)) insertKnownColumns(db, table, r);
    const before = getTableData(db, 'dataset_samples');
    const oldLookup = db.prepare(
      'SELECT id, cluster_id FROM dataset_samples WHERE substr(fingerprint, 1, 16) = substr(?, 1, 16) AND fingerprint = ? ORDER BY rowid LIMIT 1',
    );
    const fingerprints = [...new Set(before.map((s) => s.fingerprint as string))];
    const answers = fingerprints.map((f) => oldLookup.get(f, f));

    expect(updateToVersion(db, latestVersion(), file).applied).toContain('0185_fingerprint_generations.sql');
    const after = getTableData(db, 'dataset_samples');
    expect(after.map((r) => r.fingerprint_gen)).toEqual(before.map(() => 0));
    expect(after.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'fingerprint_gen')))).toEqual(before);
    const lookups = recordPrepared(db, (sql) => sql.includes('fingerprint_gen = g.x + 1'));
    expect(fingerprints.map((f) => findSampleByFingerprint(db, f))).toEqual(answers);
    // a generation's first match comes from the index in rowid order: no copy of a lesson is sorted
    expect(lookups).toHaveLength(1);
    const plan = explain(db, lookups[0]!, { fp: fingerprints[0] });
    expect(plan).toMatch(/SEARCH s USING INDEX idx_samples_fingerprint_gen \(fingerprint_gen=\? AND <expr>=\?\)/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
    // the first and last generations are each one seek, read once per lookup, not a scan of the index
    expect(plan).not.toMatch(/SCAN dataset_samples/);

    // copies of one fingerprint in generations 2, 2 and 5 (after the collected rows' 0), and one with the
    // same prefix only in 3: the first generation that holds the fingerprint answers with its first copy
    const sample = before[0]!;
    const fp = 'f'.repeat(64);
    const copy = (id: string, gen: number, cluster: string, fingerprint = fp) => ({
      ...sample,
      id,
      cluster_id: cluster,
      fingerprint,
      fingerprint_gen: gen,
      source_key: `copy:${id}`,
    });
    insertKnownColumns(db, 'dataset_samples', [
      copy('01COPY-A', 2, 'A-CLUSTER'),
      copy('01COPY-B', 2, 'B-CLUSTER'),
      copy('01COPY-D', 3, 'D-CLUSTER', `${'f'.repeat(16)}${'0'.repeat(48)}`),
      copy('01COPY-C', 5, 'C-CLUSTER'),
    ]);
    expect(findSampleByFingerprint(db, fp)).toEqual({ id: '01COPY-A', cluster_id: 'A-CLUSTER' });
    expect(findSampleByFingerprint(db, `${'f'.repeat(16)}${'0'.repeat(48)}`)).toEqual({ id: '01COPY-D', cluster_id: 'D-CLUSTER' });
    expect(findSampleByFingerprint(db, `${'f'.repeat(16)}${'1'.repeat(48)}`)).toBeUndefined();
    // generations 1 and 4 hold nothing: asked and passed over
    expect(fingerprints.map((f) => findSampleByFingerprint(db, f))).toEqual(answers);

    // the next sample's generation: the last rowid's, and never below the last generation (a VACUUM numbers
    // rows anew, keeping their order), so generations keep following the rowid
    const next = () => db.prepare(`SELECT ${NEXT_FINGERPRINT_GEN}`).pluck().get();
    expect(next()).toBe(5);
    db.prepare('UPDATE dataset_samples SET rowid = ? WHERE id = ?').run(9 * 2 ** FINGERPRINT_GEN_BITS + 7, '01COPY-C');
    expect(next()).toBe(9);

    // the Bloom filter's seed reads the index alone, every prefix of every generation
    expect(
      explain(
        db,
        'SELECT substr(fingerprint, 1, 16) FROM dataset_samples WHERE fingerprint_gen >= -9223372036854775808 AND substr(fingerprint, 1, 16) IS NOT NULL',
      ),
    ).toMatch(/COVERING INDEX idx_samples_fingerprint_gen/);
    const stored = db.prepare('SELECT substr(fingerprint, 1, 16) FROM dataset_samples').pluck().all() as string[];
    expect([...iterateFingerprints(db)].sort()).toEqual(stored.sort());
    db.close();
  });

  it('stores a collection in the last rowid’s generation, and finds copies across generations as within one', async () => {
    // one workspace collected up to the middle, copied; one copy's last sample moves to a rowid three
    // generations on, so the second half of its collection is stored in generation 3
    const first = tempWorkspace();
    const db = buildWorkspace(first, 3000); // lessons repeat across its middle from about 3,000 decisions
    const middle = middleTime(db);
    await collectSamples({ db, workspaceDir: first }, { autoApprove: true, until: middle });
    db.close();
    const second = tempWorkspace();
    fs.mkdirSync(path.join(second, '.openclaw-reflection'));
    fs.copyFileSync(path.join(first, DB_FILE), path.join(second, DB_FILE));

    const rest = async (dir: string, moveLastRow: boolean) => {
      const { db: w } = openWorkspaceDatabase(dir);
      if (moveLastRow) {
        w.prepare('UPDATE dataset_samples SET rowid = ? WHERE rowid = (SELECT max(rowid) FROM dataset_samples)').run(
          3 * 2 ** FINGERPRINT_GEN_BITS,
        );
      }
      const before = w.prepare('SELECT max(rowid) FROM dataset_samples').pluck().get() as number;
      await collectSamples({ db: w, workspaceDir: dir }, { autoApprove: true, since: middle });
      return { w, before };
    };
    const plain = await rest(first, false);
    const moved = await rest(second, true);
    try {
      const gens = (w: DB, before: number) =>
        w.prepare('SELECT DISTINCT fingerprint_gen FROM dataset_samples WHERE rowid > ?').pluck().all(before);
      expect(gens(plain.w, plain.before)).toEqual([0]);
      expect(gens(moved.w, moved.before)).toEqual([3]);
      // the second half repeats lessons of the first: their first copies are found in the other generation
      const across = moved.w
        .prepare(
          `SELECT s.fingerprint, min(f.rowid) AS first FROM dataset_samples s JOIN dataset_samples f ON f.fingerprint = s.fingerprint
            WHERE s.fingerprint_gen = 3 AND f.fingerprint_gen = 0 GROUP BY s.fingerprint`,
        )
        .all() as { fingerprint: string; first: number }[];
      expect(across.length).toBeGreaterThanOrEqual(5);
      const idAt = moved.w.prepare('SELECT id FROM dataset_samples WHERE rowid = ?').pluck();
      for (const c of across) expect(findSampleByFingerprint(moved.w, c.fingerprint)?.id).toBe(idAt.get(c.first));
      expect(samplesBySource(moved.w)).toEqual(samplesBySource(plain.w));
    } finally {
      plain.w.close();
      moved.w.close();
    }
  });
});
