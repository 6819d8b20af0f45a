// End to end: values with an invisible character inside them, recorded in conversations, facts and memory files,
// never leave the workbench through a dataset export, and each keeps one placeholder across a sample's fields.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { RecorderCore } from '../../src/core/recorder/recorder';
import { collectSamples } from '../../src/core/dataset/collect';
import { exportDataset } from '../../src/core/dataset/export';
import { tempWorkspace } from '../helpers/workspace';

const Z = '\u200b';
const VALUES = {
  card: `4532 0151 ${Z}1283 0366`,
  email: `carol.w${Z}ang@example.com`,
  key: `sk-proj-Ab3dEf6h${Z}Ij9kLm2nOp5qRs8tUv1wXy4z`,
  id: `1101011880${Z}03070018`,
  qq: `28374${Z}65019`,
  wechat: `wxid_8k2m${Z}9x0q1p7z22`,
  passport: `E123${Z}45678`,
  name: '王小明',
};
const TURNS: [string, string][] = [
  [`我的信用卡是 ${VALUES.card}，帮我记下`, `User's credit card is ${VALUES.card.replace(/\s/g, '')}`],
  [`邮箱 ${VALUES.email}`, `User's email is ${VALUES.email}`],
  [`key: ${VALUES.key}`, `OpenAI key ${VALUES.key}`],
  [`我爷爷的身份证 ${VALUES.id}`, `Grandfather's ID is ${VALUES.id}`],
  [`加我QQ ${VALUES.qq}，微信 ${VALUES.wechat}`, `QQ ${VALUES.qq}, WeChat ${VALUES.wechat}`],
  [`护照号码 ${VALUES.passport}`, `Passport ${VALUES.passport}`],
  [`我叫${VALUES.name}，在杭州`, `User's name is ${VALUES.name}`],
];

function recordWorkspace(): { ws: string; ctx: Parameters<typeof collectSamples>[0] } {
  const ws = tempWorkspace('reflection-pii-export-');
  const { db } = openWorkspaceDatabase(ws);
  const rec = new RecorderCore(db);
  let clock = Date.UTC(2026, 0, 1);
  for (let s = 0; s < 5; s++) {
    const sessionId = `channel:test:u${s}`;
    rec.upsertSession({ id: sessionId, channelId: 'test', conversationTarget: `u${s}`, createdAt: clock, lastActivityAt: clock });
    for (const [user, fact] of TURNS) {
      clock += 600_000;
      const t = rec.insertTurn({ sessionId, userMessage: { content: user }, agentReply: { content: '好的' }, createdAt: clock });
      const decisionId = rec.insertDecision({
        turnId: t.id,
        sessionId,
        decision: 'UPDATE_USER',
        reason: 'personal detail',
        candidateFact: fact,
        llmCall: { model: 'm', latencyMs: 1 },
        createdAt: clock + 1000,
      });
      rec.recordWrite({
        decisionId,
        turnId: t.id,
        sessionId,
        targetFile: 'USER.md',
        candidateFact: fact,
        before: '# USER\n',
        after: `# USER\n- ${fact}\n`,
        status: 'written',
        createdAt: clock + 2000,
      });
    }
  }
  return { ws, ctx: { db, workspaceDir: ws, now: () => clock + 40 * 86_400_000, actor: 'tester' } };
}

describe('dataset export with invisible characters inside PII', () => {
  it.each(['alpaca', 'sharegpt', 'openai', 'raw'] as const)(
    '%s: no value leaks, no zero-width character is left, one placeholder per value',
    async (format) => {
      const { ws, ctx } = recordWorkspace();
      await collectSamples(ctx);
      const outDir = path.join(ws, `out-${format}`);
      await exportDataset(ctx, { format, outDir, includeUnreviewed: true, includeBelowQuality: true });
      const text = fs
        .readdirSync(outDir)
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => fs.readFileSync(path.join(outDir, f), 'utf8'))
        .join('\n');
      expect(text.length).toBeGreaterThan(500);
      // Compare without separators and invisible characters: "4532 0151 1283 0366" must not survive in any spelling.
      const squashed = text.replace(/\\u200b|\u200b|\s/g, '');
      for (const [kind, value] of Object.entries(VALUES)) expect(squashed, kind).not.toContain(value.replace(/\u200b|\s/g, ''));
      expect(text).not.toMatch(/\u200b|\\u200b/);
      // Every value is the first of its type in its sample, and each sample numbers its own placeholders.
      const placeholders = new Set(text.match(/\[[A-Z_]+_\d+\]/g));
      expect([...placeholders].sort()).toEqual([
        '[API_KEY_1]',
        '[CN_ID_1]',
        '[CN_PASSPORT_1]',
        '[CREDIT_CARD_1]',
        '[EMAIL_1]',
        '[PERSON_1]',
        '[QQ_1]',
        '[WECHAT_1]',
      ]);
    },
  );
});
