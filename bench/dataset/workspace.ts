// A recorded workspace of n gate decisions for the dataset benchmarks (collect, export, jobs) and the
// perf tests: 60% written, 15% refused, 25% NO_WRITE; one user message in twenty carries PII, one in
// seven is a short follow-up, and one write in twenty gets a curator correction. Deterministic.
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { RecorderCore } from '../../src/core/recorder/recorder';
import { correctWrite } from '../../src/core/guardian/corrections';
import type { GateDecision } from '../../src/shared/domain';

const FILES = ['USER.md', 'MEMORY.md', 'TOOLS.md'] as const;
const DECISION_FOR: Record<(typeof FILES)[number], GateDecision> = {
  'USER.md': 'UPDATE_USER',
  'MEMORY.md': 'UPDATE_MEMORY',
  'TOOLS.md': 'UPDATE_TOOLS',
};
const TOPICS = [
  'green tea',
  'morning check-ins',
  'the Falcon release',
  'pnpm',
  'dark mode',
  '周报格式',
  '上海的办公室',
  'vim keybindings',
  'the on-call rota',
  '晚上九点以后不开会',
];
const FOLLOWUPS = [
  'Thanks, perfect!',
  'No, that is wrong.',
  '为什么会这样？',
  '我更喜欢用 pnpm',
  'ok',
  'Also, never use sudo.',
  'cool',
  '可以了',
];

/** A recorded workspace with n decisions: 60% written, 15% refused, 25% NO_WRITE; some PII, some repeats. */
export function buildWorkspace(dir: string, n: number): DB {
  const { db } = openWorkspaceDatabase(dir);
  const rec = new RecorderCore(db);
  const sessions = Math.max(1, Math.floor(n / 25));
  const base = Date.UTC(2026, 0, 1);
  let t = base;
  let i = 0;
  const chunk = 5000;
  const toCorrect: string[] = [];
  while (i < n) {
    rec.batch(() => {
      for (let k = 0; k < chunk && i < n; k++, i++) {
        const s = `channel:bench:${i % sessions}`;
        t += 1000;
        if (i < sessions)
          rec.upsertSession({ id: s, channelId: 'bench', conversationTarget: String(i), createdAt: base, lastActivityAt: base });
        const topic = TOPICS[i % TOPICS.length]!;
        const pii = i % 20 === 0 ? ` Mail me at user${i}@example.com or call 138${String(10000000 + i).slice(-8)}.` : '';
        const user = i % 7 === 0 ? FOLLOWUPS[i % FOLLOWUPS.length]! : `Note ${i}: I care about ${topic}, variant ${i % 97}.${pii}`;
        const turn = rec.insertTurn({
          sessionId: s,
          userMessage: { content: user },
          agentReply: { content: `Understood about ${topic} (${i}).` },
          createdAt: t,
        });
        const kind = i % 20;
        const file = FILES[i % FILES.length]!;
        const decision: GateDecision = kind < 5 ? 'NO_WRITE' : DECISION_FOR[file];
        const fact = decision === 'NO_WRITE' ? undefined : `User cares about ${topic} (${i % 97})`;
        const decisionId = rec.insertDecision({
          turnId: turn.id,
          sessionId: s,
          decision,
          reason: `Stable preference about ${topic}.`,
          candidateFact: fact,
          llmCall: { model: 'bench', latencyMs: 50 },
          createdAt: t + 1,
        });
        if (decision !== 'NO_WRITE') {
          const w = rec.recordWrite({
            decisionId,
            turnId: turn.id,
            sessionId: s,
            targetFile: file,
            candidateFact: fact,
            status: kind < 8 ? 'refused' : 'written',
            reason: kind < 8 ? 'Duplicate of an existing entry.' : 'Applied.',
            createdAt: t + 2,
          });
          if (kind === 19) toCorrect.push(w.auditId);
        }
      }
    });
  }
  // one write in twenty gets a curator correction (preference pairs for openai-dpo)
  const ctx = { db, workspaceDir: dir, now: () => t + 10_000 };
  toCorrect.forEach((auditId, k) =>
    k % 2
      ? correctWrite(ctx, { auditId, status: 'refused', reason: 'Not worth remembering.' })
      : correctWrite(ctx, {
          auditId,
          status: 'written',
          fact: `Corrected fact ${k}`,
          file: 'MEMORY.md',
          reason: 'Belongs in MEMORY.md, said precisely.',
        }),
  );
  return db;
}
