// Issue 16: collection reads a page's context windows, following turns, plugin audits and corrections in one
// statement each. For every decision of a page they must be what the per-decision reads return: both forms
// of stored context (rows and importer windows, more items than the window keeps), sessions interleaved, a
// decision with two plugin audits, one whose only audit is not the plugin's, and two corrections of one.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPageFacts } from '../../src/core/dataset/collect/decision';
import { markMissedWrite } from '../../src/core/dataset/missedWrite';
import { correctWrite } from '../../src/core/guardian/corrections';
import {
  findLatestBehaviorCorrection,
  findLatestGateCorrection,
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
/** Corrections of three plugin audits (two of one, at the same time) and of two NO_WRITE decisions (two of one). */
async function correct(ctx: Ctx): Promise<void> {
  const audits = ctx.db
    .prepare(
      `SELECT id FROM write_guardian_audit a WHERE source = 'plugin' AND status = 'written'
        AND (SELECT count(*) FROM write_guardian_audit b WHERE b.decision_id = a.decision_id) = 1 ORDER BY rowid LIMIT 3`,
    )
    .pluck()
    .all() as string[];
  for (const [k, auditId] of audits.entries()) {
    for (let n = 0; n < (k ? 1 : 2); n++) {
      correctWrite(ctx, {
        auditId,
        status: n ? 'refused' : 'written',
        fact: `corrected ${k}.${n}`,
        file: 'USER.md',
        reason: `reason ${n}`,
      });
    }
  }
  const noWrites = ctx.db
    .prepare("SELECT id FROM memory_gate_decisions WHERE decision = 'NO_WRITE' ORDER BY rowid LIMIT 2")
    .pluck()
    .all() as string[];
  for (const [k, decisionId] of noWrites.entries()) {
    for (let n = 0; n < (k ? 1 : 2); n++) {
      await markMissedWrite(ctx, { decisionId, fact: `missed ${k}.${n}`, file: 'MEMORY.md', reason: `reason ${n}` });
    }
  }
}

const withoutKey =
  (key: string) =>
  <T extends object>(row: T): T => {
    const copy = { ...row } as Record<string, unknown>;
    delete copy[key];
    return copy as T;
  };
const maybe = <T, U>(value: T | undefined, f: (v: T) => U): U | undefined => (value === undefined ? undefined : f(value));

function pageOfAllTurns(ctx: Ctx): CollectDecisionRow[] {
  const rows = ctx.db
    .prepare(
      `SELECT coalesce(d.id, 'no-decision:' || t.id) AS id, t.id AS turn_id, t.session_id, coalesce(d.decision, 'UPDATE_USER') AS decision,
        t.turn_number, t.created_at AS turn_created_at
      FROM conversation_turns t LEFT JOIN memory_gate_decisions d ON d.turn_id = t.id ORDER BY t.seq`,
    )
    .all() as CollectDecisionRow[];
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
      await correct(ctx);
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
        let corrections = 0;
        let gateCorrections = 0;
        for (const d of rows) {
          const context = listContextNewestFirst(ctx.db, d.turn_id, 10);
          expect(facts.contexts.get(d.turn_id) ?? [], d.turn_id).toEqual(context);
          const turns = listFollowingTurns(ctx.db, d.session_id, d.turn_created_at, d.turn_number, limit);
          expect((facts.following.get(d.id) ?? []).map((t) => [t.id, t.user_message_content, t.created_at])).toEqual(
            turns.map((t) => [t.id, t.user_message_content, t.created_at]),
          );
          const plugin = d.decision === 'NO_WRITE' ? [] : listPluginAudits(ctx.db, d.id);
          expect((facts.audits.get(d.id) ?? []).map(withoutKey('decision_id'))).toEqual(plugin);
          if (plugin[0]) {
            const correction = findLatestBehaviorCorrection(ctx.db, plugin[0].id);
            expect(maybe(facts.corrections.get(plugin[0].id), withoutKey('audit_id'))).toEqual(correction);
            corrections += correction ? 1 : 0;
          }
          const gateCorrection = d.decision === 'NO_WRITE' ? findLatestGateCorrection(ctx.db, d.id) : undefined;
          expect(maybe(facts.gateCorrections.get(d.id), withoutKey('decision_id'))).toEqual(gateCorrection);
          gateCorrections += gateCorrection ? 1 : 0;
          contexts += context.length;
          following += turns.length;
          audits += plugin.length;
        }
        expect(contexts).toBeGreaterThan(500);
        expect(following).toBeGreaterThan(rows.length * limit * 0.8);
        expect(audits).toBeGreaterThan(20);
        expect(corrections).toBe(3);
        expect(gateCorrections).toBe(2);
      }
    } finally {
      ctx.db.close();
    }
  });
});
