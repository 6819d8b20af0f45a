// An export with a time window plans from the time index in (created_at, rowid) order, each chunk a seek
// from the last one's key (issue 16): asked for in rowid order, every chunk found and sorted the whole
// window again. The plan must hold what the whole selection filtered by time holds, in chunks of any size,
// including chunks that end among samples of one time, and its clusters are numbered by id digest.
import { describe, expect, it } from 'vitest';
import { planExport, resolveExport, selectionOf, type ExportOptions } from '../../src/core/dataset/exportPlan';
import { ID_KEY_WORDS, listPlanColumns, type PlanColumns } from '../../src/core/db/repositories/exportSamples';
import { explain, recordPrepared } from '../helpers/db';
import { byFirstAppearance, idDigest, planView, withCollected } from '../helpers/planColumns';

type Window = Pick<ExportOptions, 'since' | 'until'>;

const T0 = 1_000_000;
const WINDOWS: Window[] = [{ since: T0 + 100 }, { until: T0 + 300 }, { since: T0 + 100, until: T0 + 300 }, { since: T0 + 250 }];

/** Each row's label text (null for none), when the plan balances. */
const labelsOf = (c: PlanColumns) => (c.labelNo ? Array.from(c.labelNo, (l) => (l < 0 ? null : c.labels![l]!)) : null);

/** The plan's view, with each row's id key and label when it balances. */
const view = (c: PlanColumns) => ({ ...planView(c), idKey: c.idKey ? Array.from(c.idKey) : null, label: labelsOf(c) });

/** The view of the rows of `all` whose time passes `keep`, clusters numbered again by first appearance. */
function filtered(all: ReturnType<typeof view>, keep: (i: number) => boolean) {
  const at = all.r.map((_, i) => i).filter(keep);
  const pick = <T>(xs: T[] | null) => (xs ? at.map((i) => xs[i]!) : null);
  return {
    r: pick(all.r)!,
    cluster: byFirstAppearance(pick(all.cluster)!),
    grp: pick(all.grp)!,
    flags: pick(all.flags)!,
    idKey: all.idKey ? at.flatMap((i) => all.idKey!.slice(i * ID_KEY_WORDS, (i + 1) * ID_KEY_WORDS)) : null,
    label: pick(all.label),
  };
}

describe('the plan of an export with a time window', () => {
  it('reads the window by key from the time index and holds what the whole selection filtered by time holds', () =>
    withCollected(300, (db) => {
      // 40 times in an order unlike rowid order, about 18 samples each
      db.exec(`UPDATE dataset_samples SET created_at = ${T0} + ((rowid * 7919) % 40) * 10`);
      const time = new Map(db.prepare('SELECT rowid, created_at FROM dataset_samples').raw(true).all() as [number, number][]);
      const queries = recordPrepared(db, (sql) => sql.includes('json_group_array'));
      let checked = 0;
      for (const splitBy of ['session', 'turn'] as const) {
        for (const labels of [false, true]) {
          const columns = (o: Window, chunk?: number) =>
            listPlanColumns(
              db,
              selectionOf(resolveExport({ format: 'raw', includeUnreviewed: true, ...o })),
              { splitBy, groupKey: idDigest, labels: labels ? idDigest : null },
              chunk,
            );
          const all = view(columns({}));
          expect(all.r.length).toBeGreaterThan(600);
          for (const w of WINDOWS) {
            const inWindow = (i: number) => time.get(all.r[i]!)! >= (w.since ?? 0) && time.get(all.r[i]!)! < (w.until ?? Infinity);
            const expected = filtered(all, inWindow);
            expect(expected.r.length).toBeGreaterThan(100);
            for (const chunk of [1, 2, 3, 17, 18, undefined]) expect(view(columns(w, chunk))).toEqual(expected);
            checked++;
          }
        }
      }
      expect(checked).toBe(16);
      const keyed = queries.filter((q) => q.includes('INDEXED BY idx_samples_created'));
      expect(keyed.length).toBeGreaterThan(0);
      for (const sql of keyed) {
        // the key is the only lower bound on time, so SQLite seeks by it
        expect(sql).not.toMatch(/created_at >= @since/);
        const plan = explain(db, sql, { types: '[]', after: 0, afterTime: 0, until: T0, minQuality: 0.5 });
        expect(plan).toMatch(/SEARCH s USING INDEX idx_samples_created \(created_at>\?/);
        expect(plan).not.toMatch(/TEMP B-TREE/);
      }
    }));

  it('plans a window that holds every sample as the export without one, and reads the table when the time index is gone', () =>
    withCollected(200, (db, dir) => {
      // a cluster across the whole range, so that the plans fold samples
      db.exec('UPDATE dataset_samples SET cluster_id = (SELECT min(cluster_id) FROM dataset_samples) WHERE rowid % 17 = 0');
      const first = db.prepare('SELECT min(created_at) FROM dataset_samples').pluck().get() as number;
      const plans = (o: Window) =>
        (['raw', 'alpaca', 'kto'] as const).map((format) => {
          const p = planExport({ db, workspaceDir: dir }, resolveExport({ format, ...o }));
          return { rowids: Array.from(p.rowids), validation: Array.from(p.validation), folded: p.foldedTotal };
        });
      const whole = plans({});
      expect(whole.every((p) => p.folded > 0 && p.validation.includes(1))).toBe(true);
      expect(plans({ since: first })).toEqual(whole);
      const windowed = plans({ since: first + 60_000, until: first + 180_000 });
      expect(windowed[0]!.rowids.length).toBeLessThan(whole[0]!.rowids.length);
      db.exec('DROP INDEX idx_samples_created');
      const queries = recordPrepared(db, (sql) => sql.includes('json_group_array'));
      expect(plans({ since: first + 60_000, until: first + 180_000 })).toEqual(windowed);
      expect(queries.some((q) => q.includes('created_at >= @since'))).toBe(true);
    }));
});
