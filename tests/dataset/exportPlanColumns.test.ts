import { beforeAll, describe, expect, it } from 'vitest';
import { collectSamples } from '../../src/core/dataset';
import { resolveExport, selectionOf } from '../../src/core/dataset/exportPlan';
import { listPlanColumns } from '../../src/core/db/repositories/exportSamples';
import { buildFixture, type Fixture } from './fixture';
import { byFirstAppearance, groupKeyText, idDigest, idKeysOf, planView } from '../helpers/planColumns';

let f: Fixture;

beforeAll(async () => {
  f = await buildFixture();
  await collectSamples(f.ctx, { autoApprove: true });
});

/** The plan's columns as rows, read the way the plan read them before it read columns (one row per sample). */
function planRows(format: 'raw' | 'ranking', splitBy: 'session' | 'turn') {
  const sel = selectionOf(resolveExport({ format, includeUnreviewed: true, includeBelowQuality: true }));
  const pairs = sel.pairsOnly ? "AND (sample_type = 'memory_gate_negative' OR correction_id IS NOT NULL)" : '';
  return f.ctx.db
    .prepare(
      `SELECT rowid AS r, coalesce(cluster_id, id) AS cluster, ${splitBy === 'turn' ? 'coalesce(turn_id, id)' : 'session_id'} AS grp,
         (annotation_status IN ('approved', 'auto_approved')) + 2 * (correction_id IS NOT NULL OR collection_strategy IN ('manual_correction', 'missed_write')) AS flags, id
       FROM dataset_samples WHERE annotation_status <> 'rejected' AND sample_type IN (SELECT value FROM json_each(?)) ${pairs} ORDER BY rowid`,
    )
    .all(JSON.stringify(sel.sampleTypes)) as { r: number; cluster: string; grp: string; flags: number; id: string }[];
}

describe('the plan columns', () => {
  it('hold every selected sample in rowid order, the same in chunks of any size', () => {
    for (const format of ['raw', 'ranking'] as const) {
      for (const splitBy of ['session', 'turn'] as const) {
        const sel = selectionOf(resolveExport({ format, includeUnreviewed: true, includeBelowQuality: true }));
        const whole = listPlanColumns(f.ctx.db, sel, { splitBy, groupKey: idDigest, labels: idDigest });
        const expected = planRows(format, splitBy);
        expect(expected.length).toBeGreaterThan(3);
        const view = planView(whole);
        expect(view.r).toEqual(expected.map((x) => x.r));
        expect(view.cluster).toEqual(byFirstAppearance(expected.map((x) => x.cluster)));
        expect(whole.clusters).toBe(new Set(expected.map((x) => x.cluster)).size);
        expect(view.grp).toEqual(expected.map((x) => groupKeyText(x.grp)));
        expect(view.flags).toEqual(expected.map((x) => x.flags));
        expect(Array.from(whole.idKey!)).toEqual(idKeysOf(expected.map((x) => x.id)));
        for (const chunk of [1, 2, 3, expected.length, expected.length + 1]) {
          expect(listPlanColumns(f.ctx.db, sel, { splitBy, groupKey: idDigest, labels: idDigest }, chunk)).toEqual(whole);
        }
        // raw split by session reads the cluster index (migration 0184), which numbers the clusters in its order
        expect(planView(listPlanColumns(f.ctx.db, sel, { splitBy, groupKey: idDigest, labels: null }, 2))).toEqual(view);
      }
    }
  });
});
