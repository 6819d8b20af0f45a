// Migration 0181 replaces the full fingerprint index of dataset_samples (fingerprint, type, cluster, id)
// with an index of the fingerprint's first 16 characters (issue 16: the wide random-key index was the
// largest share of the bytes a collection wrote). Dedupe's exact lookup must answer with the row the old
// index gave for every fingerprint of a real collected workspace, and the seeding of a run's Bloom filter
// must still read the index alone. Where copies of one fingerprint differ in type or cluster (a curator's
// edit), the lookup now answers with the first stored copy, read without sorting them all (issue 16).
// Migration 0185 puts a generation before the prefix (its own test); the answers must stay the same.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { latestVersion } from '../../src/core/db/migrate';
import { hexHashes } from '../../src/core/dataset/collect/bloom';
import { findSampleByFingerprint, iterateFingerprints } from '../../src/core/db/repositories/collectDedupe';
import { emptyDatabase, explain, getTableData, insertKnownColumns, updateToVersion } from '../helpers/db';
import { collectedRows } from '../helpers/collectedRows';

const indexesOf = (db: Database.Database) =>
  db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'dataset_samples' AND sql IS NOT NULL").pluck().all();

describe('migration 0181: a fingerprint prefix index', () => {
  it('keeps every row, and the exact-duplicate lookup answers with the row the full index gave', async () => {
    // the bench workspace repeats lessons: exact duplicates
    const rows = await collectedRows(400);
    const { db, file } = emptyDatabase();
    updateToVersion(db, 180);
    for (const [table, r] of Object.entries(rows)) insertKnownColumns(db, table, r);
    // two samples of one fingerprint in clusters that sort the other way round from their ids, and a
    // sample of another type with the same fingerprint: the old index answered with the first by type,
    // cluster and id (C), the prefix index with the first stored (A)
    const sample = rows.dataset_samples![0]!;
    const fp = 'f'.repeat(64);
    const copy = (id: string, type: string, cluster: string) => ({
      ...sample,
      id,
      sample_type: type,
      cluster_id: cluster,
      fingerprint: fp,
      source_key: `copy:${id}`,
    });
    insertKnownColumns(db, 'dataset_samples', [
      copy('01COPY-A', 'memory_gate_positive', 'Z-CLUSTER'),
      copy('01COPY-B', 'memory_gate_positive', 'A-CLUSTER'),
      copy('01COPY-C', 'memory_gate_negative', 'M-CLUSTER'),
    ]);
    // one more with the same first 16 characters and another fingerprint: the prefix alone must not match
    insertKnownColumns(db, 'dataset_samples', [
      { ...copy('01COPY-D', 'annotated_turn', 'B-CLUSTER'), fingerprint: `${'f'.repeat(16)}${'0'.repeat(48)}` },
    ]);
    const fingerprints = db
      .prepare('SELECT DISTINCT fingerprint FROM dataset_samples WHERE fingerprint IS NOT NULL')
      .pluck()
      .all() as string[];
    const repeated = db
      .prepare('SELECT count(*) FROM (SELECT fingerprint FROM dataset_samples GROUP BY fingerprint HAVING count(*) > 1)')
      .pluck()
      .get() as number;
    expect(repeated).toBeGreaterThan(5);
    const oldLookup = db.prepare('SELECT id, cluster_id FROM dataset_samples WHERE fingerprint = ? LIMIT 1');
    expect(explain(db, 'SELECT id, cluster_id FROM dataset_samples WHERE fingerprint = ? LIMIT 1', 'x')).toMatch(
      /idx_samples_fingerprint_cluster/,
    );
    const real = fingerprints.filter((f) => f !== fp);
    const answers = real.map((f) => oldLookup.get(f));
    expect(oldLookup.get(fp)).toEqual({ id: '01COPY-C', cluster_id: 'M-CLUSTER' });
    const before = getTableData(db, 'dataset_samples');

    const result = updateToVersion(db, latestVersion(), file);
    expect(result.applied).toContain('0181_fingerprint_prefix.sql');
    // every row as it was, with the generation 0185 adds (0 for rows stored before it)
    const after = getTableData(db, 'dataset_samples');
    expect(after.map((r) => r.fingerprint_gen)).toEqual(before.map(() => 0));
    expect(after.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'fingerprint_gen')))).toEqual(before);
    expect(result.applied).toContain('0185_fingerprint_generations.sql');
    expect(indexesOf(db)).toContain('idx_samples_fingerprint_gen');
    expect(indexesOf(db)).not.toContain('idx_samples_fingerprint_prefix');
    expect(indexesOf(db)).not.toContain('idx_samples_fingerprint_cluster');
    expect(real.map((f) => findSampleByFingerprint(db, f))).toEqual(answers);
    expect(findSampleByFingerprint(db, fp)).toEqual({ id: '01COPY-A', cluster_id: 'Z-CLUSTER' });
    expect(findSampleByFingerprint(db, `${'f'.repeat(16)}${'1'.repeat(48)}`)).toBeUndefined();
    expect(findSampleByFingerprint(db, `${'f'.repeat(16)}${'0'.repeat(48)}`)).toEqual({ id: '01COPY-D', cluster_id: 'B-CLUSTER' });

    // the Bloom filter's seed hashes the same two words as the whole digest gives
    const seeded = [...iterateFingerprints(db)];
    expect(seeded.sort()).toEqual(before.map((s) => (s.fingerprint as string).slice(0, 16)).sort());
    expect(hexHashes(seeded[0]!)).toEqual(
      hexHashes(before.find((s) => (s.fingerprint as string).startsWith(seeded[0]!))!.fingerprint as string),
    );
    db.close();
  });
});
