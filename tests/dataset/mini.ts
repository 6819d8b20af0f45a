// A small recorded workspace built turn by turn through the recorder, for tests that need exact control.
// No vitest import here: the bench builds the near-duplicate pair set with it too (miniWorkspaceAt).
import fs from 'node:fs';
import path from 'node:path';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { RecorderCore } from '../../src/core/recorder/recorder';
import type { ServiceContext } from '../../src/core/context';
import type { GateDecision, MemoryFileName } from '../../src/shared/domain';

export interface MiniTurn {
  decision: GateDecision;
  fact?: string;
  reason?: string;
  /** written: the file gets "- fact"; refused/skipped: recorded without file contents, as plugin logs do. */
  write?: { status: 'written' | 'refused' | 'skipped'; file: MemoryFileName; reason?: string };
  /** Earlier messages in the gate's context window. */
  context?: { role: 'user' | 'agent'; message: string }[];
}

export interface Mini {
  ws: string;
  db: DB;
  ctx: ServiceContext;
  turn: (sessionId: string, user: string, agent: string, gate: MiniTurn) => { turnId: string; decisionId: string; auditId?: string };
  advance: (ms: number) => void;
}

export const T0 = Date.UTC(2026, 4, 1, 9, 0, 0);

export function miniWorkspaceAt(ws: string): Mini {
  const { db } = openWorkspaceDatabase(ws);
  const rec = new RecorderCore(db);
  let clock = T0;
  const ctx: ServiceContext = { db, workspaceDir: ws, now: () => clock + 30 * 86_400_000, actor: 'tester' };
  const sessions = new Set<string>();
  const files = new Map<string, string>();
  const turn: Mini['turn'] = (sessionId, user, agent, gate) => {
    if (!sessions.has(sessionId)) {
      rec.upsertSession({ id: sessionId, channelId: 'test', createdAt: clock, lastActivityAt: clock });
      sessions.add(sessionId);
    }
    clock += 60_000;
    const t = rec.insertTurn({ sessionId, userMessage: { content: user }, agentReply: { content: agent }, createdAt: clock });
    if (gate.context?.length) {
      rec.insertContextBatch(
        t.id,
        gate.context.map((m, i) => ({ role: m.role, message: m.message, timestamp: clock - 1000 + i })),
      );
    }
    const decisionId = rec.insertDecision({
      turnId: t.id,
      sessionId,
      decision: gate.decision,
      reason: gate.reason ?? 'because',
      candidateFact: gate.fact,
      llmCall: { model: 'test' },
      createdAt: clock + 1,
    });
    if (!gate.write) return { turnId: t.id, decisionId };
    const file = gate.write.file;
    const before = files.get(file) ?? `# ${file}\n`;
    const written = gate.write.status === 'written';
    const after = `${before}- ${gate.fact}\n`;
    const w = rec.recordWrite({
      decisionId,
      turnId: t.id,
      sessionId,
      targetFile: file,
      candidateFact: gate.fact,
      status: gate.write.status,
      reason: gate.write.reason,
      createdAt: clock + 2,
      ...(written ? { before, after } : {}),
    });
    if (written) {
      files.set(file, after);
      // the file on disk too, so rollbacks of these writes work as on a real workspace
      fs.writeFileSync(path.join(ws, file), after);
    }
    return { turnId: t.id, decisionId, auditId: w.auditId };
  };
  return { ws, db, ctx, turn, advance: (ms) => (clock += ms) };
}
