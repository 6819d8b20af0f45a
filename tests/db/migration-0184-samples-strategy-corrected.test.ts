// Migration 0184 adds a partial index of the samples corrected by their strategy alone (no correction id),
// so the plan of every export but the preference ones reads idx_samples_cluster_filters, which holds every
// other column it needs, instead of scanning the table (issue 16). The plan must read the same columns from
// the indexes as from the table (a database without the index, or with a sample outside any cluster, reads
// the table), in chunks of any size, and fold the same samples.
import { describe, expect, it } from 'vitest';
import { planExport, resolveExport, selectionOf } from '../../src/core/dataset/exportPlan';
import { listPlanColumns } from '../../src/core/db/repositories/exportSamples';
import type { DB } from '../../src/core/db/connection';
import { explain, recordPrepared } from '../helpers/db';
import { idDigest, planView, withCollected } from '../helpers/planColumns';

const FORMATS = ['raw', 'csv', 'alpaca', 'kto'] as const;

/** Every format's plan columns (labels off, split by session) in chunks of several sizes, and its plan. */
function plans(db: DB, dir: string) {
  return FORMATS.flatMap((format) =>
    [false, true].map((includeUnreviewed) => {
      const r = resolveExport({ format, includeUnreviewed });
      const sel = selectionOf(r);
      const chunks = [1, 2, 3, 7, 1000].map((chunk) =>
        planView(listPlanColumns(db, sel, { splitBy: 'session', groupKey: idDigest, labels: null }, chunk)),
      );
      const plan = planExport({ db, workspaceDir: dir }, r);
      return { chunks, plan };
    }),
  );
}

describe('migration 0184: an index of the samples corrected by their strategy alone', () => {
  it('gives the plans the same columns and folds as the table, from the indexes alone', () =>
    withCollected(400, (db, dir) => {
      // a curator's missed writes (corrected by their strategy alone), and a cluster larger than a chunk
      db.exec(`UPDATE dataset_samples SET collection_strategy = 'missed_write' WHERE correction_id IS NULL AND rowid % 13 = 0`);
      db.exec(`UPDATE dataset_samples SET cluster_id = (SELECT min(cluster_id) FROM dataset_samples) WHERE rowid % 17 = 0`);
      expect(db.prepare("SELECT count(*) FROM dataset_samples WHERE collection_strategy = 'missed_write'").pluck().get()).toBeGreaterThan(
        5,
      );
      const queries = recordPrepared(db, (sql) => sql.includes('INDEXED BY'));
      const withIndex = plans(db, dir);
      expect(withIndex.every((p) => p.chunks.every((c) => c.r.length === p.chunks[0]!.r.length))).toBe(true);
      expect(withIndex.some((p) => p.chunks[0]!.r.length > 100 && p.plan.foldedTotal > 0)).toBe(true);
      const params = { after: '', types: '[]', minQuality: 0.5 };
      const byCluster = queries.filter((q) => q.includes('INDEXED BY idx_samples_cluster_filters'));
      expect(byCluster.length).toBeGreaterThan(0);
      for (const sql of byCluster) expect(explain(db, sql, params)).toMatch(/COVERING INDEX idx_samples_cluster_filters/);
      const strategy = queries.find((q) => q.includes('INDEXED BY idx_samples_strategy_corrected'))!;
      expect(explain(db, strategy)).toMatch(/COVERING INDEX idx_samples_strategy_corrected/);
      db.exec('DROP INDEX idx_samples_strategy_corrected');
      queries.length = 0;
      expect(plans(db, dir)).toEqual(withIndex);
      expect(queries.filter((q) => q.includes('idx_samples_cluster_filters'))).toEqual([]);
    }));

  it('puts sparse rowids (many samples deleted) in rowid order without reading the table again', () =>
    withCollected(600, (db, dir) => {
      db.pragma('foreign_keys = OFF');
      db.exec('DELETE FROM dataset_samples WHERE rowid % 100 != 0');
      const sel = selectionOf(resolveExport({ format: 'raw', includeUnreviewed: true }));
      const n = db.prepare('SELECT count(*) FROM dataset_samples').pluck().get() as number;
      const top = db.prepare('SELECT max(rowid) FROM dataset_samples').pluck().get() as number;
      expect(top).toBeGreaterThan(8 * n + 1024);
      const byIndex = recordPrepared(db, (sql) => sql.includes('INDEXED BY idx_samples_cluster_filters'));
      const sparse = listPlanColumns(db, sel, { splitBy: 'session', groupKey: idDigest, labels: null }, 3);
      expect(byIndex.length).toBeGreaterThan(0);
      expect(sparse.r.length).toBe(n);
      db.exec('DROP INDEX idx_samples_strategy_corrected');
      byIndex.length = 0;
      const fromTable = listPlanColumns(db, sel, { splitBy: 'session', groupKey: idDigest, labels: null }, 3);
      expect(byIndex).toEqual([]);
      expect(planView(sparse)).toEqual(planView(fromTable));
    }));

  it('reads the table when a sample is in no cluster', () =>
    withCollected(120, (db, dir) => {
      const sel = selectionOf(resolveExport({ format: 'raw', includeUnreviewed: true }));
      const byIndex = recordPrepared(db, (sql) => sql.includes('INDEXED BY idx_samples_cluster_filters'));
      const before = listPlanColumns(db, sel, { splitBy: 'session', groupKey: idDigest, labels: null });
      expect(byIndex.length).toBeGreaterThan(0);
      // the first sample joins the cluster of another one, then leaves every cluster
      const [first, second] = [before.r[0]!, before.r[1]!];
      db.prepare('UPDATE dataset_samples SET cluster_id = (SELECT cluster_id FROM dataset_samples WHERE rowid = ?) WHERE rowid = ?').run(
        second,
        first,
      );
      const joined = listPlanColumns(db, sel, { splitBy: 'session', groupKey: idDigest, labels: null });
      expect(joined.clusterNo[0]).toBe(joined.clusterNo[1]);
      db.prepare('UPDATE dataset_samples SET cluster_id = NULL WHERE rowid = ?').run(first);
      byIndex.length = 0;
      const after = listPlanColumns(db, sel, { splitBy: 'session', groupKey: idDigest, labels: null });
      expect(byIndex).toEqual([]);
      expect(after.r).toEqual(before.r);
      // folded by its own id: a cluster of its own
      expect(after.clusterNo.filter((k) => k === after.clusterNo[0])).toHaveLength(1);
      expect(after.clusters).toBe(joined.clusters + 1);
    }));
});
