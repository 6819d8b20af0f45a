// The writer the curator judges: gate precision/recall per decision type, guardian accuracy, the
// over-write rate, churn per file and the weekly trend, from corrections, rollbacks, missed writes and approvals.
import { describe, expect, it } from 'vitest';
import { collectSamples, isoWeek, markMissedWrite, reviewSample, writerQuality } from '../../src/core/dataset';
import { correctWrite } from '../../src/core/guardian/corrections';
import { rollbackWrite } from '../../src/core/guardian/rollback';
import { miniWorkspace } from './miniTemp';

describe('writer quality from curator labels', () => {
  it('scores the gate per decision type, the guardian per action, over-writes, churn and weeks', async () => {
    const m = miniWorkspace();
    const a = m.turn('s:1', 'I prefer tea.', 'Ok.', {
      decision: 'UPDATE_USER',
      fact: 'prefers tea',
      write: { status: 'written', file: 'USER.md' },
    });
    const b = m.turn('s:1', 'I am tired today.', 'Rest.', {
      decision: 'UPDATE_USER',
      fact: 'is tired today',
      write: { status: 'written', file: 'USER.md' },
    });
    const c = m.turn('s:2', 'My son is allergic to milk.', 'Oh.', { decision: 'NO_WRITE', reason: 'Not about the user.' });
    const d = m.turn('s:2', 'Nice weather.', 'Yes.', { decision: 'NO_WRITE', reason: 'Small talk.' });
    m.advance(8 * 86_400_000); // the next week
    const e = m.turn('s:3', 'Falcon ships maybe in May.', 'Ok.', {
      decision: 'UPDATE_MEMORY',
      fact: 'Falcon ships in May',
      write: { status: 'written', file: 'MEMORY.md' },
    });
    const f = m.turn('s:3', 'I love jasmine tea.', 'Ok.', {
      decision: 'UPDATE_TOOLS',
      fact: 'likes tea',
      write: { status: 'written', file: 'TOOLS.md' },
    });
    // curator actions come after everything was recorded, as on a real workspace
    await rollbackWrite(m.ctx, { auditId: e.auditId!, reason: 'Only a guess.' });
    correctWrite(m.ctx, { auditId: b.auditId!, status: 'refused', reason: 'A passing state.' });
    correctWrite(m.ctx, { auditId: f.auditId!, status: 'written', file: 'USER.md', fact: 'likes jasmine tea', reason: 'About the user.' });
    await collectSamples(m.ctx, {});
    const sampleOf = (key: string) => m.db.prepare('SELECT id FROM dataset_samples WHERE source_key = ?').pluck().get(key) as string;
    await reviewSample(m.ctx, { sampleId: sampleOf(`pos:${a.decisionId}`), action: 'approve' });
    await reviewSample(m.ctx, { sampleId: sampleOf(`pos:nowrite:${d.decisionId}`), action: 'approve' });
    await markMissedWrite(m.ctx, {
      decisionId: c.decisionId,
      fact: "User's son is allergic to milk",
      file: 'USER.md',
      reason: 'A lasting family fact.',
    });

    const q = writerQuality(m.ctx);
    expect(q.judgedDecisions).toBe(6);
    expect(q.gateAccuracy).toBe(0.333);
    const gate = Object.fromEntries(q.gate.map((g) => [g.decision, g]));
    expect(gate.UPDATE_USER).toMatchObject({ predicted: 2, support: 3, precision: 0.5, recall: 0.333 });
    expect(gate.NO_WRITE).toMatchObject({ predicted: 2, support: 3, precision: 0.5, recall: 0.333 });
    expect(gate.UPDATE_MEMORY).toMatchObject({ predicted: 1, support: 0, precision: 0, recall: null });
    expect(gate.UPDATE_TOOLS).toMatchObject({ predicted: 1, support: 0, precision: 0, recall: null });
    expect(q).toMatchObject({ overWrites: 2, judgedWrites: 4, overWriteRate: 0.5 });
    expect(q.guardian.find((g) => g.action === 'write')).toMatchObject({ judged: 3, correct: 1, accuracy: 0.333 });
    const churn = Object.fromEntries(q.churn.map((x) => [x.file, x]));
    expect(churn['USER.md']).toMatchObject({ writes: 2, rollbacks: 0, corrections: 1, churn: 0.5 });
    expect(churn['MEMORY.md']).toMatchObject({ writes: 1, rollbacks: 1, corrections: 0, churn: 1 });
    expect(churn['TOOLS.md']).toMatchObject({ writes: 1, rollbacks: 0, corrections: 1, churn: 1 });
    expect(q.weekly.map((w) => w.judged)).toEqual([4, 2]);
    expect(q.weekly[1]).toMatchObject({ accuracy: 0, overWriteRate: 0.5 });
    expect(isoWeek(Date.UTC(2026, 0, 1))).toBe('2026-W01');
    expect(isoWeek(Date.UTC(2027, 0, 1))).toBe('2026-W53');
  });
});
