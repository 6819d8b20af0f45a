// Dedupe's exact-fingerprint table (issue 16, migration 0185): rows in generations, written by triggers
// whatever stores a fingerprint, merged as they pile up. The lookup must answer with the row the plain
// query over dataset_samples gives (the first by type, cluster and id among samples of that fingerprint),
// after collections in many transactions, edits, deletes, a re-clustering and a run's merge.
import { describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../bench/dataset/workspace';
import { collectSamples } from '../../src/core/dataset';
import { resolveDatasetConfig } from '../../src/core/dataset/config';
import { Deduper, reclusterSamples, repairFingerprintIndex } from '../../src/core/dataset/dedupe';
import {
  findSampleByFingerprint,
  listFingerprintGenerations,
  setFingerprintGeneration,
} from '../../src/core/db/repositories/collectDedupe';
import type { DB } from '../../src/core/db/connection';
import type { SampleContent } from '../../src/core/dataset/types';
import { tempWorkspace } from '../helpers/workspace';

const reference = (db: DB, fp: string) =>
  db.prepare('SELECT id, cluster_id FROM dataset_samples WHERE fingerprint = ? ORDER BY sample_type, cluster_id, id LIMIT 1').get(fp);
const fingerprints = (db: DB) =>
  db.prepare('SELECT DISTINCT fingerprint FROM dataset_samples WHERE fingerprint IS NOT NULL').pluck().all() as string[];
/** Samples whose fingerprint has no row: a lookup could miss them. */
const missing = (db: DB) =>
  db
    .prepare(
      `SELECT count(*) FROM dataset_samples s WHERE s.fingerprint IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM dataset_fingerprints f WHERE f.sample_id = s.id AND f.prefix = substr(s.fingerprint, 1, 16))`,
    )
    .pluck()
    .get() as number;

function expectLookupsExact(db: DB, extra: string[] = []): void {
  expect(missing(db)).toBe(0);
  for (const fp of [...fingerprints(db), ...extra]) expect(findSampleByFingerprint(db, fp), fp).toEqual(reference(db, fp));
}

/** A collected workspace, in transactions of `batch` decisions: many generations, merged as they pile up. */
async function collected(decisions: number, batch: number): Promise<DB> {
  const dir = tempWorkspace();
  const db = buildWorkspace(dir, decisions);
  await collectSamples({ db, workspaceDir: dir }, { autoApprove: true, batchSize: batch });
  return db;
}

describe('fingerprint generations', () => {
  it('answer as the plain query after a collection of many transactions, with few generations', async () => {
    const db = await collected(400, 8);
    try {
      const repeated = db
        .prepare('SELECT count(*) FROM (SELECT fingerprint FROM dataset_samples GROUP BY fingerprint HAVING count(*) > 1)')
        .pluck()
        .get() as number;
      expect(repeated).toBeGreaterThan(5);
      // 50 transactions: level 0 merged into level 1 (more than 8 at a level merge into one of the next)
      const gens = listFingerprintGenerations(db);
      expect(gens.length).toBeLessThanOrEqual(18);
      expect(gens.some((g) => g % 8 === 1)).toBe(true);
      expectLookupsExact(db);
    } finally {
      db.close();
    }
  });

  it('follow edits, deletes and a re-clustering, and a run start merges them into one', async () => {
    const db = await collected(200, 10);
    try {
      const ids = db.prepare('SELECT id, fingerprint FROM dataset_samples ORDER BY id').all() as { id: string; fingerprint: string }[];
      const old = ids[1]!.fingerprint;
      // a review edit gives a new fingerprint; another sample takes one that a third already has
      db.prepare('UPDATE dataset_samples SET fingerprint = ? WHERE id = ?').run('e'.repeat(64), ids[1]!.id);
      db.prepare('UPDATE dataset_samples SET fingerprint = ? WHERE id = ?').run(ids[5]!.fingerprint, ids[7]!.id);
      db.prepare('DELETE FROM dataset_samples WHERE id = ?').run(ids[5]!.id);
      expectLookupsExact(db, [old, ids[5]!.fingerprint, `${'e'.repeat(16)}${'0'.repeat(48)}`]);

      // more generations than a run's start keeps: edits between runs, each in a generation of its own
      const edit = db.prepare('UPDATE dataset_samples SET fingerprint = ? WHERE id = ?');
      const last = listFingerprintGenerations(db).at(-1)!;
      for (let i = 0; i < 14; i++) {
        setFingerprintGeneration(db, last + 8 * (i + 1));
        edit.run(ids[20 + i]!.fingerprint, ids[40 + i]!.id);
      }
      expect(listFingerprintGenerations(db).length).toBeGreaterThan(12);
      const rows = db.prepare('SELECT count(*) FROM dataset_fingerprints').pluck().get() as number;
      db.transaction(() => repairFingerprintIndex(db))();
      expect(listFingerprintGenerations(db)).toHaveLength(1);
      // the deleted sample's row is gone; a sample's rows of an old fingerprint stay (they match nothing)
      expect(db.prepare('SELECT count(*) FROM dataset_fingerprints').pluck().get()).toBe(rows - 1);
      expectLookupsExact(db, [old]);

      reclusterSamples(db, resolveDatasetConfig().dedupe);
      expectLookupsExact(db);
    } finally {
      db.close();
    }
  });

  it('keep the rows of a run stopped between transactions', async () => {
    const dir = tempWorkspace();
    const db = buildWorkspace(dir, 200);
    try {
      const stop = new AbortController();
      const r = await collectSamples(
        { db, workspaceDir: dir, signal: stop.signal, progress: (done) => done >= 60 && stop.abort() },
        { autoApprove: true, batchSize: 20 },
      );
      expect(r.cancelled).toBe(true);
      expect(r.addedTotal).toBeGreaterThan(0);
      expectLookupsExact(db);
      await collectSamples({ db, workspaceDir: dir }, { autoApprove: true, batchSize: 20 });
      expectLookupsExact(db);
    } finally {
      db.close();
    }
  });

  it("find what others wrote between a run's transactions", async () => {
    const db = await collected(200, 50);
    try {
      const dedupe = new Deduper(db, resolveDatasetConfig().dedupe, { expectedSamples: 1_000_000 });
      db.transaction(() => {
        dedupe.startFingerprintGeneration();
        dedupe.endFingerprintGeneration();
      })();
      // a sample whose fingerprint no other has is deleted, and a review edit gives another sample that fingerprint
      const [gone, edited] = db
        .prepare(
          `SELECT id, fingerprint, coalesce(pii_redacted_content, content) AS content FROM dataset_samples
            WHERE fingerprint IN (SELECT fingerprint FROM dataset_samples GROUP BY fingerprint HAVING count(*) = 1) ORDER BY id LIMIT 2`,
        )
        .all() as { id: string; fingerprint: string; content: string }[];
      db.prepare('DELETE FROM dataset_samples WHERE id = ?').run(gone!.id);
      db.prepare('UPDATE dataset_samples SET fingerprint = ? WHERE id = ?').run(gone!.fingerprint, edited!.id);
      db.transaction(() => dedupe.startFingerprintGeneration())();
      const a = dedupe.assign('01NEW', JSON.parse(gone!.content) as SampleContent);
      expect(a.fingerprint).toBe(gone!.fingerprint);
      expect(a.duplicateOf).toBe(edited!.id);
    } finally {
      db.close();
    }
  });
});
