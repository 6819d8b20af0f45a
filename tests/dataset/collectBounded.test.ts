// A run collects the decisions that exist when it starts (issue 16): live capture keeps recording
// while a long collection runs, and a run that chased the new decisions would not end while capture
// outpaced it. The next run collects them.
import { describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../bench/dataset/workspace';
import { collectSamples } from '../../src/core/dataset';
import { RecorderCore } from '../../src/core/recorder/recorder';
import { tempWorkspace } from '../helpers/workspace';

describe('collection bounds', () => {
  it('decisions recorded while a run goes are left for the next run', async () => {
    const dir = tempWorkspace();
    const db = buildWorkspace(dir, 120);
    try {
      const rec = new RecorderCore(db);
      const session = db.prepare('SELECT id FROM sessions LIMIT 1').pluck().get() as string;
      let recorded = 0;
      // progress is reported between transactions: record a decision there, as live capture would
      const record = () => {
        const at = Date.UTC(2026, 0, 2) + recorded++;
        const turn = rec.insertTurn({
          sessionId: session,
          userMessage: { content: `Late turn ${recorded}` },
          agentReply: { content: 'ok' },
          createdAt: at,
        });
        rec.insertDecision({
          turnId: turn.id,
          sessionId: session,
          decision: 'NO_WRITE',
          reason: 'Small talk.',
          llmCall: { model: 'test', latencyMs: 1 },
          createdAt: at + 1,
        });
      };
      const first = await collectSamples({ db, workspaceDir: dir, progress: () => record() }, { batchSize: 10 });
      expect(recorded).toBeGreaterThan(5);
      expect(first.decisionsScanned).toBe(120);
      const late = db
        .prepare(
          "SELECT count(*) FROM dataset_samples s JOIN conversation_turns t ON t.id = s.turn_id WHERE t.user_message_content LIKE 'Late turn%'",
        )
        .pluck();
      expect(late.get()).toBe(0);
      const second = await collectSamples({ db, workspaceDir: dir }, {});
      expect(second.decisionsScanned).toBe(120 + recorded);
      expect(late.get()).toBe(recorded);
    } finally {
      db.close();
    }
  });
});
