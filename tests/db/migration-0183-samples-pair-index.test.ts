// Migration 0183 adds a partial index of the samples that hold a pair (gate refusals and corrected
// samples) with every column an export's plan reads of them, so the preference exports (ranking,
// openai-dpo) plan from the index alone instead of reading each of those rows from the table (issue 16).
// The plan must read the same columns with the index and without it (a database where it is missing
// falls back to the table), and must read the index alone when it does not balance labels.
import { describe, expect, it } from 'vitest';
import { collectSamples } from '../../src/core/dataset';
import { resolveExport, selectionOf } from '../../src/core/dataset/exportPlan';
import { listPlanColumns } from '../../src/core/db/repositories/exportSamples';
import { buildWorkspace } from '../../bench/dataset/workspace';
import { explain, recordPrepared } from '../helpers/db';
import { tempWorkspace } from '../helpers/workspace';
import { idDigest } from '../helpers/planColumns';

describe('migration 0183: an index of the samples that hold a pair', () => {
  it('gives the preference plans the same columns as the table, from the index alone', async () => {
    const dir = tempWorkspace();
    const db = buildWorkspace(dir, 400);
    try {
      await collectSamples({ db, workspaceDir: dir }, { autoApprove: true });
      const index = db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'idx_samples_pairs'").pluck().get() as string;
      expect(index).toMatch(/WHERE sample_type = 'memory_gate_negative' OR correction_id IS NOT NULL/);
      const queries = recordPrepared(db, (sql) => sql.includes('json_group_array'));
      const plans = (includeUnreviewed: boolean) =>
        (['openai-dpo', 'ranking'] as const).flatMap((format) =>
          (['session', 'turn'] as const).flatMap((splitBy) =>
            [false, true].map((labels) =>
              listPlanColumns(
                db,
                selectionOf(resolveExport({ format, includeUnreviewed })),
                { splitBy, groupKey: idDigest, labels: labels ? idDigest : null },
                7,
              ),
            ),
          ),
        );
      const withIndex = [...plans(false), ...plans(true)];
      expect(withIndex.some((p) => p.r.length > 20)).toBe(true);
      const unbalanced = queries.filter((q) => !q.includes(' AS label'));
      expect(unbalanced.length).toBeGreaterThan(0);
      for (const sql of unbalanced)
        expect(explain(db, sql, { after: 0, types: '[]', minQuality: 0.5 })).toMatch(/COVERING INDEX idx_samples_pairs/);
      db.exec('DROP INDEX idx_samples_pairs');
      expect([...plans(false), ...plans(true)]).toEqual(withIndex);
    } finally {
      db.close();
    }
  });
});
