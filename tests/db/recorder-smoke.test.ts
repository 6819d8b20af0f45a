import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRecorder } from '../../src/recorder';
import { tempWorkspace } from '../helpers/workspace';

describe('recorder', () => {
  it('records a session, a turn with context, a decision and a write with its diff', async () => {
    const ws = tempWorkspace();
    const rec = openRecorder({ workspaceDir: ws });
    await rec.upsertSession({
      id: 'channel:discord:42',
      channelId: 'discord',
      conversationTarget: '42',
      createdAt: 1000,
      lastActivityAt: 1000,
    });
    const { id: turnId, turnNumber } = await rec.insertTurn({
      sessionId: 'channel:discord:42',
      userMessage: { content: '我喜欢早上开会' },
      agentReply: { content: 'Noted: you prefer morning meetings.' },
      createdAt: 2000,
    });
    expect(turnNumber).toBe(0);
    await rec.insertContextBatch(turnId, [
      { role: 'user', message: 'hi', timestamp: 1500 },
      { role: 'user', message: '我喜欢早上开会', timestamp: 1900 },
    ]);
    const decisionId = await rec.insertDecision({
      turnId,
      sessionId: 'channel:discord:42',
      decision: 'UPDATE_USER',
      reason: 'stable preference',
      candidateFact: 'prefers morning meetings',
      llmCall: { model: 'test-model', latencyMs: 120 },
      createdAt: 2100,
    });
    const w = await rec.recordWrite({
      decisionId,
      turnId,
      sessionId: 'channel:discord:42',
      targetFile: 'USER.md',
      candidateFact: 'prefers morning meetings',
      before: '# User\n',
      after: '# User\n- prefers morning meetings\n',
      status: 'written',
      createdAt: 2200,
    });
    expect(w.lines).toEqual({ added: 1, removed: 0, modified: 0 });
    expect(w.diff).toContain('+- prefers morning meetings');
    expect((await rec.getContextByTurn(turnId)).map((c) => c.message)).toEqual(['hi', '我喜欢早上开会']);
    const db = rec.core.db;
    expect(db.prepare("SELECT count(*) FROM turns_fts WHERE turns_fts MATCH '早上开'").pluck().get()).toBe(1);
    expect(() =>
      rec.core.insertDecision({
        turnId,
        sessionId: 'x',
        decision: 'UPDATE_USER',
        reason: 'r',
        llmCall: { model: 'm' },
        createdAt: 1,
      } as never),
    ).toThrow(/candidateFact/);
    expect(() =>
      rec.core.insertTurn({
        sessionId: 'channel:discord:42',
        userMessage: { content: 5 },
        agentReply: { content: '' },
        createdAt: 1,
      } as never),
    ).toThrow(/userMessage\.content/);
    rec.close();
    expect(fs.existsSync(path.join(ws, '.openclaw-reflection', 'reflection.db'))).toBe(true);
  });
});
