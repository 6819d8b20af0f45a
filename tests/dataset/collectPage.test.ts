// Issue 16: collection reads a page's context windows, following turns and plugin audits in one statement
// each. For every decision of a page they must be what the per-decision reads return: both forms of stored
// context (rows and importer windows, more items than the window keeps), sessions interleaved, a decision
// with two plugin audits and one whose only audit is not the plugin's.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPageFacts } from '../../src/core/dataset/collect/decision';
import {
  listContextNewestFirst,
  listFollowingTurns,
  listPluginAudits,
  type CollectDecisionRow,
} from '../../src/core/db/repositories/collect';
import { importOpenClaw } from '../../src/core/importers';
import { RecorderCore } from '../../src/core/recorder/recorder';
import { contextTranscript } from '../importers/contextTranscript';
import { newContext, writeFile } from '../importers/helpers';

type Ctx = ReturnType<typeof newContext>;

/** Two recorder sessions with interleaved turns, contexts stored as rows (0 to 14 items), and audited writes. */
function recordSessions(ctx: Ctx): void {
  const rec = new RecorderCore(ctx.db);
  const at = Date.UTC(2026, 2, 2);
  for (const s of ['rec-a', 'rec-b'])
    rec.upsertSession({ id: s, channelId: 'test', conversationTarget: s, createdAt: at, lastActivityAt: at });
  for (let i = 0; i < 30; i++) {
    const sessionId = i % 3 ? 'rec-a' : 'rec-b';
    // two turns share a time now and then: following turns are ordered by (created_at, turn_number)
    const createdAt = at + Math.floor(i / 2) * 1000;
    const turn = rec.insertTurn({ sessionId, userMessage: { content: `user ${i}` }, agentReply: { content: `agent ${i}` }, createdAt });
    const items = (i * 7) % 15;
    rec.insertContextBatch(
      turn.id,
      Array.from({ length: items }, (_, k) => ({
        role: k % 2 ? 'agent' : 'user',
        message: `context ${i}.${k}`,
        timestamp: createdAt - 1000 + k,
      })),
    );
    const decision = i % 4 ? 'UPDATE_MEMORY' : 'NO_WRITE';
    const decisionId = rec.insertDecision({
      turnId: turn.id,
      sessionId,
      decision,
      reason: 'test',
      ...(decision === 'NO_WRITE' ? {} : { candidateFact: `fact ${i}` }),
      llmCall: { model: 'test' },
      createdAt: createdAt + 1,
    });
    if (decision === 'NO_WRITE') continue;
    const writes = i % 5 === 1 ? 2 : 1;
    for (let w = 0; w < writes; w++) {
      rec.recordWrite({
        decisionId,
        turnId: turn.id,
        sessionId,
        targetFile: 'MEMORY.md',
        candidateFact: `fact ${i}`,
        status: w ? 'refused' : 'written',
        source: i % 7 === 2 ? 'retry' : 'plugin',
        createdAt: createdAt + 2 + (writes - w),
      });
    }
  }
}

/** Every turn as a decision row of one page (only what the page read uses is real for imported turns). */
function pageOfAllTurns(ctx: Ctx): CollectDecisionRow[] {
  const rows = ctx.db
    .prepare(
      `SELECT coalesce(d.id, 'no-decision:' || t.id) AS id, t.id AS turn_id, t.session_id, coalesce(d.decision, 'UPDATE_USER') AS decision,
        t.turn_number, t.created_at AS turn_created_at
      FROM conversation_turns t LEFT JOIN memory_gate_decisions d ON d.turn_id = t.id ORDER BY t.seq`,
    )
    .all() as CollectDecisionRow[];
  for (const r of rows) r.page = rows;
  return rows;
}

describe("a page's facts, read in one statement each", () => {
  it('are what the per-decision reads return, for rows and windows of context', async () => {
    const ctx = newContext();
    try {
      const file = writeFile(path.join(ctx.workspaceDir, 'sessions', 'ctx-1.jsonl'), `${contextTranscript(60).join('\n')}\n`);
      await importOpenClaw(ctx, { source: file });
      fs.rmSync(file);
      recordSessions(ctx);
      const rows = pageOfAllTurns(ctx);
      const count = (sql: string) => ctx.db.prepare(sql).pluck().get() as number;
      // the page holds what it claims to
      expect(count('SELECT count(*) FROM conversation_context_windows')).toBeGreaterThan(30);
      expect(count('SELECT count(*) FROM conversation_contexts')).toBeGreaterThan(100);
      expect(count('SELECT max(n) FROM (SELECT count(*) AS n FROM conversation_contexts GROUP BY turn_id)')).toBeGreaterThan(10);
      expect(count("SELECT count(*) FROM write_guardian_audit WHERE source <> 'plugin'")).toBeGreaterThan(0);

      for (const limit of [1, 2, 3]) {
        const facts = readPageFacts(ctx.db, rows, limit);
        let contexts = 0;
        let following = 0;
        let audits = 0;
        for (const d of rows) {
          const context = listContextNewestFirst(ctx.db, d.turn_id, 10);
          expect(facts.contexts.get(d.turn_id) ?? [], d.turn_id).toEqual(context);
          const turns = listFollowingTurns(ctx.db, d.session_id, d.turn_created_at, d.turn_number, limit);
          expect((facts.following.get(d.id) ?? []).map((t) => [t.id, t.user_message_content, t.created_at])).toEqual(
            turns.map((t) => [t.id, t.user_message_content, t.created_at]),
          );
          const plugin = d.decision === 'NO_WRITE' ? [] : listPluginAudits(ctx.db, d.id);
          expect((facts.audits.get(d.id) ?? []).map(({ decision_id: _, ...a }: { decision_id?: string }) => a)).toEqual(plugin);
          contexts += context.length;
          following += turns.length;
          audits += plugin.length;
        }
        expect(contexts).toBeGreaterThan(500);
        expect(following).toBeGreaterThan(rows.length * limit * 0.8);
        expect(audits).toBeGreaterThan(20);
      }
    } finally {
      ctx.db.close();
    }
  });
});
