import { describe, expect, it } from 'vitest';
import { collectSamples } from '../../src/core/dataset';
import { taskOf } from '../../src/core/dataset/formats';
import { taughtLabel } from '../../src/core/dataset/exportRecords';
import type { SampleContent } from '../../src/core/dataset/types';
import { buildWorkspace } from '../../bench/dataset/workspace';
import { buildFixture } from './fixture';
import { tempWorkspace } from '../helpers/workspace';

/** Every stored content of a database, redacted and raw. */
const contents = (db: { prepare: (sql: string) => { pluck: () => { all: () => unknown[] } } }): SampleContent[] =>
  (
    db
      .prepare(
        "SELECT content FROM dataset_samples UNION ALL SELECT pii_redacted_content FROM dataset_samples WHERE pii_redacted_content <> ''",
      )
      .pluck()
      .all() as string[]
  ).map((t) => JSON.parse(t) as SampleContent);

describe('taughtLabel', () => {
  it("is taskOf's step and label for every collected sample, corrections included", async () => {
    const f = await buildFixture();
    await collectSamples(f.ctx, { autoApprove: true });
    const dir = tempWorkspace();
    const db = buildWorkspace(dir, 300);
    await collectSamples({ db, workspaceDir: dir }, { autoApprove: true });
    const all = [...contents(f.ctx.db), ...contents(db)];
    db.close();
    const types = new Set(all.map((c) => c.type));
    expect([...types].sort()).toEqual(['annotated_turn', 'memory_gate_negative', 'memory_gate_positive', 'write_guardian_decision']);
    expect(all.some((c) => c.type === 'write_guardian_decision' && c.userCorrection)).toBe(true);
    for (const c of all) {
      const t = taskOf(c);
      expect(taughtLabel(c)).toEqual(c.type === 'annotated_turn' ? null : { step: t.step, label: t.label });
    }
  });
});
