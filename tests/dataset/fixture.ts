// A recorded workspace with known samples, built through the recorder and the guardian services.
import fs from 'node:fs';
import path from 'node:path';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { RecorderCore } from '../../src/core/recorder/recorder';
import type { ServiceContext } from '../../src/core/context';
import { correctWrite } from '../../src/core/guardian/corrections';
import { rollbackWrite } from '../../src/core/guardian/rollback';
import { addExclusion } from '../../src/core/lifecycle/exclusions';
import type { GateDecision, MemoryFileName } from '../../src/shared/domain';
import { tempWorkspace } from '../helpers/workspace';

export const BASE = Date.UTC(2026, 2, 1, 8, 0, 0);
const MIN = 60_000;
export const DAY = 86_400_000;
/** The collection clock: a month after the fixture, so every write is past its rollback window. */
export const COLLECT_NOW = BASE + 30 * DAY;

export const S = {
  alice: 'channel:discord:alice',
  bob: 'channel:telegram:bob',
  carol: 'channel:discord:carol',
  dave: 'channel:slack:dave',
  erin: 'channel:discord:erin',
  frank: 'channel:discord:frank',
  gina: 'channel:webchat:gina',
  hank: 'channel:discord:hank',
};

export const PII = {
  email: 'carol.wang@example.com',
  mobile: '13812345678',
  apiKey: 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
};

export interface Fixture {
  ws: string;
  db: DB;
  ctx: ServiceContext;
  ids: Record<FixtureTurn, { decisionId: string; auditId?: string; turnId: string }>;
}

/** The turns buildFixture records a gate decision for. */
export type FixtureTurn = `${'alice' | 'carol' | 'dave' | 'gina'}${0 | 1}` | 'bob0' | 'hank0' | 'frank0' | `erin${0 | 1 | 2}`;

export async function buildFixture(): Promise<Fixture> {
  const ws = tempWorkspace('reflection-dataset-');
  const { db } = openWorkspaceDatabase(ws);
  const rec = new RecorderCore(db);
  let clock = BASE;
  const ctx: ServiceContext = { db, workspaceDir: ws, now: () => clock, actor: 'tester' };
  const files: Record<string, string> = {};
  const ids = {} as Fixture['ids']; // every key is filled by the turns below

  const session = (id: string) => {
    const [, channel = '', target = ''] = id.split(':');
    rec.upsertSession({ id, channelId: channel, conversationTarget: target, createdAt: clock, lastActivityAt: clock });
  };
  const turn = (
    key: FixtureTurn,
    sessionId: string,
    user: string,
    agent: string,
    gate?: {
      decision: GateDecision;
      fact?: string;
      reason: string;
      write?: { status: 'written' | 'refused'; file: MemoryFileName; reason?: string };
    },
  ) => {
    clock += 10 * MIN;
    const t = rec.insertTurn({ sessionId, userMessage: { content: user }, agentReply: { content: agent }, createdAt: clock });
    if (!gate) return;
    const decisionId = rec.insertDecision({
      turnId: t.id,
      sessionId,
      decision: gate.decision,
      reason: gate.reason,
      candidateFact: gate.fact,
      llmCall: { model: 'test-model', latencyMs: 100 },
      createdAt: clock + 1000,
    });
    ids[key] = { decisionId, turnId: t.id };
    if (gate.write) {
      const file = gate.write.file;
      const before = files[file] ?? `# ${file}\n`;
      const written = gate.write.status === 'written';
      const after = written ? `${before}- ${gate.fact}\n` : undefined;
      const w = rec.recordWrite({
        decisionId,
        turnId: t.id,
        sessionId,
        targetFile: file,
        candidateFact: gate.fact,
        before,
        ...(written ? { after } : {}),
        status: gate.write.status,
        reason: gate.write.reason,
        createdAt: clock + 2000,
      });
      if (written) {
        files[file] = after!;
        fs.writeFileSync(path.join(ws, file), after!);
      }
      ids[key].auditId = w.auditId;
    }
  };

  // The seed's Alpaca example, and a "thanks" after it (a success signal).
  session(S.alice);
  turn('alice0', S.alice, 'I prefer morning check-ins', "I'll remember that you prefer morning check-ins.", {
    decision: 'UPDATE_USER',
    fact: 'prefers morning check-ins',
    reason: 'This is a stable user preference about collaboration cadence.',
    write: { status: 'written', file: 'USER.md' },
  });
  turn('alice1', S.alice, 'Thanks, perfect!', "You're welcome.", { decision: 'NO_WRITE', reason: 'Small talk.' });

  // The seed's ShareGPT example.
  session(S.bob);
  turn('bob0', S.bob, 'I prefer morning check-ins', "I'll remember that.", {
    decision: 'UPDATE_USER',
    fact: 'prefers morning check-ins',
    reason: '用户说明了沟通时间偏好。',
    write: { status: 'written', file: 'USER.md' },
  });

  // Chinese, with an email and a mobile number; the curator later corrects it to refused; the user objects.
  session(S.carol);
  turn('carol0', S.carol, `我的邮箱是 ${PII.email}，手机 ${PII.mobile}，以后发报告用这个邮箱。`, '好的，我记住了。', {
    decision: 'UPDATE_USER',
    fact: `用户的邮箱是 ${PII.email}`,
    reason: '用户提供了联系方式，用于发送报告。',
    write: { status: 'written', file: 'USER.md' },
  });
  turn('carol1', S.carol, '不对，别记我的邮箱。', '好的，已经忘掉了。', { decision: 'NO_WRITE', reason: '用户要求不要记录。' });

  // A refused secret, and a write that gets rolled back.
  session(S.dave);
  turn('dave0', S.dave, `Use this API key for the deploy: ${PII.apiKey}`, 'Got it, I will use it for deploys.', {
    decision: 'UPDATE_TOOLS',
    fact: `Deploy API key is ${PII.apiKey}`,
    reason: 'Tool configuration the user will need again.',
    write: { status: 'refused', file: 'TOOLS.md', reason: 'Secrets must not be stored in memory files.' },
  });
  turn('dave1', S.dave, 'Project Falcon ships on April 1st, probably.', 'Noted, Falcon ships April 1st.', {
    decision: 'UPDATE_MEMORY',
    fact: 'Project Falcon ships on April 1st',
    reason: 'Maybe a project date worth keeping.',
    write: { status: 'written', file: 'MEMORY.md' },
  });

  // A correction to another fact and file, made apply-to-future with the pattern "green tea".
  session(S.hank);
  turn('hank0', S.hank, 'I love jasmine green tea in the afternoon.', 'Jasmine green tea, noted.', {
    decision: 'UPDATE_MEMORY',
    fact: 'Hank drinks tea',
    reason: 'A drink preference of the user.',
    write: { status: 'written', file: 'MEMORY.md' },
  });

  // Three identical turns: one cluster, exported once. They match Hank's pattern.
  session(S.erin);
  for (let i = 0; i < 3; i++) {
    turn(`erin${i as 0 | 1 | 2}`, S.erin, 'I like green tea with my breakfast every day.', 'Green tea with breakfast, got it.', {
      decision: 'UPDATE_USER',
      fact: 'likes green tea with breakfast',
      reason: 'A stable daily habit of the user, worth remembering.',
      write: { status: 'written', file: 'USER.md' },
    });
  }

  // An opted-out session: never collected.
  session(S.frank);
  turn('frank0', S.frank, 'I prefer tabs over spaces in every project.', 'Tabs it is.', {
    decision: 'UPDATE_USER',
    fact: 'prefers tabs over spaces',
    reason: 'Coding style preference.',
    write: { status: 'written', file: 'USER.md' },
  });
  addExclusion(ctx, { kind: 'session', value: S.frank, reason: 'test opt-out' });

  // Gate said NO_WRITE; the user then asks to remember the same thing.
  session(S.gina);
  turn('gina0', S.gina, 'My sister Lily lives in Hangzhou and visits every spring.', 'That sounds lovely.', {
    decision: 'NO_WRITE',
    reason: 'Not about the user.',
  });
  turn('gina1', S.gina, 'Please remember: my sister Lily lives in Hangzhou and visits every spring.', 'I will remember that.', {
    decision: 'UPDATE_USER',
    fact: 'Sister Lily lives in Hangzhou',
    reason: 'The user explicitly asked to remember it.',
  });

  // Curator actions. Hank's correction is dated before Erin's turns, so they are "later samples" for its pattern.
  clock = BASE + 1;
  correctWrite(ctx, {
    auditId: ids.hank0.auditId!,
    status: 'written',
    fact: 'User likes jasmine green tea',
    file: 'USER.md',
    reason: 'It is about the user, and the fact should say what they like.',
    applyToFuture: true,
    pattern: 'green tea',
  });
  clock = BASE + 2 * DAY;
  correctWrite(ctx, { auditId: ids.carol0.auditId!, status: 'refused', reason: '联系方式不应写入记忆文件。' });
  clock = BASE + 3 * DAY;
  await rollbackWrite(ctx, { auditId: ids.dave1.auditId!, reason: 'The date was only a guess.' });
  clock = COLLECT_NOW;
  return { ws, db, ctx, ids };
}
