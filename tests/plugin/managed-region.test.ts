// Rollback and retry with the memory-management plugin's managed region, on a store and file
// written here in the plugin's format (so CI checks item 5 without the plugin checkout; the real
// branch is driven in memory-management.test.ts).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { RecorderCore } from '../../src/core/recorder/recorder';
import { rollbackWrite } from '../../src/core/guardian/rollback';
import { planManaged, settleManagedStore } from '../../src/core/guardian/managed';
import { tempWorkspace } from '../helpers/workspace';

const START = '<!-- reflection:managed:start -->';
const END = '<!-- reflection:managed:end -->';
const fact = (id: string, text: string, at: string) => ({
  id,
  fileName: 'USER.md',
  text,
  status: 'active',
  createdAt: at,
  updatedAt: at,
  provenance: { sessionKey: 's1', sourceMessageId: `m-${id}`, decision: 'UPDATE_USER', reason: 'r', recordedAt: at },
});

/** A workspace after two plugin writes to USER.md, each followed by the plugin's re-render. */
function workspaceWithTwoFacts() {
  const ws = tempWorkspace('managed-');
  const { db } = openWorkspaceDatabase(ws);
  const core = new RecorderCore(db);
  core.upsertSession({ id: 's1', channelId: 'discord', createdAt: 1, lastActivityAt: 1 });
  const turn = core.insertTurn({ sessionId: 's1', userMessage: { content: 'u' }, agentReply: { content: 'a' }, createdAt: 1000 }).id;
  const write = (fact: string, before: string, after: string, at: number) => {
    const decisionId = core.insertDecision({
      turnId: turn,
      sessionId: 's1',
      decision: 'UPDATE_USER',
      reason: 'r',
      candidateFact: fact,
      llmCall: { model: 'm' },
      createdAt: at,
    });
    return core.recordWrite({
      decisionId,
      turnId: turn,
      sessionId: 's1',
      targetFile: 'USER.md',
      candidateFact: fact,
      before,
      after,
      status: 'written',
      createdAt: at,
    }).auditId;
  };
  const v1 = `# USER\n- likes tea\n\n${START}\n- likes tea\n${END}\n`;
  const first = write('likes tea', '# USER\n', v1, 2000);
  const v2 = `# USER\n- likes tea\n- lives in Leeds\n\n${START}\n- likes tea\n- lives in Leeds\n${END}\n`;
  write('lives in Leeds', v1, v2, 3000);
  fs.writeFileSync(path.join(ws, 'USER.md'), v2);
  const store = {
    facts: [fact('fact_A', 'likes tea', '2026-01-01T00:00:02.000Z'), fact('fact_B', 'lives in Leeds', '2026-01-01T00:00:03.000Z')],
    factEvents: [],
    proposals: [] as unknown[],
  };
  const storeFile = path.join(ws, '.openclaw-reflection', 'memory-management-store.json');
  fs.writeFileSync(storeFile, `${JSON.stringify(store, null, 2)}\n`);
  return { ws, db, first, storeFile, store };
}

describe('managed region with rollback (synthetic store)', () => {
  it('removes the fact from the free text, the region and the store; the region stays exactly the active facts', async () => {
    const { ws, db, first, storeFile } = workspaceWithTwoFacts();
    await rollbackWrite({ db, workspaceDir: ws }, { auditId: first });
    expect(fs.readFileSync(path.join(ws, 'USER.md'), 'utf8')).toBe(`# USER\n- lives in Leeds\n\n${START}\n- lives in Leeds\n${END}\n`);
    const store = JSON.parse(fs.readFileSync(storeFile, 'utf8'));
    expect(store.facts.map((f: { id: string; status: string }) => [f.id, f.status])).toEqual([
      ['fact_A', 'deleted'],
      ['fact_B', 'active'],
    ]);
    expect(store.factEvents).toEqual([expect.objectContaining({ factId: 'fact_A', type: 'deleted', fileName: 'USER.md' })]);
  });

  it('refuses with the reason when a pending proposal names the fact, and changes nothing', async () => {
    const { ws, db, first, storeFile, store } = workspaceWithTwoFacts();
    store.proposals.push({ id: 'proposal_1', action: 'edit', status: 'pending', factId: 'fact_A', fileName: 'USER.md', diff: '' });
    fs.writeFileSync(storeFile, JSON.stringify(store));
    const file = fs.readFileSync(path.join(ws, 'USER.md'), 'utf8');
    await expect(rollbackWrite({ db, workspaceDir: ws }, { auditId: first })).rejects.toThrow(/pending proposal \(proposal_1\)/);
    expect(fs.readFileSync(path.join(ws, 'USER.md'), 'utf8')).toBe(file);
    expect(fs.readFileSync(storeFile, 'utf8')).toBe(JSON.stringify(store));
  });

  it('after a crash between the store and the file write, the file decides which store version stands', () => {
    const { ws, storeFile } = workspaceWithTwoFacts();
    const current = fs.readFileSync(path.join(ws, 'USER.md'), 'utf8');
    const planned = planManaged(
      ws,
      { file: 'USER.md', fact: 'likes tea', sessionKey: 's1', at: 2000, direction: 'remove' },
      current,
      '# USER\n- lives in Leeds\n',
      5000,
    )!;
    const marker = path.join(ws, '.openclaw-reflection', 'memory-management-store.workbench-pending.json');
    const crash = (fileWritten: boolean) => {
      fs.writeFileSync(
        marker,
        JSON.stringify({
          file: 'USER.md',
          storeBefore: planned.plan.storeBefore,
          storeAfter: planned.plan.storeAfter,
          fileHash: createHash('sha256').update(planned.content!).digest('hex'),
        }),
      );
      fs.writeFileSync(storeFile, planned.plan.storeAfter); // the store was written ...
      fs.writeFileSync(path.join(ws, 'USER.md'), fileWritten ? planned.content! : current); // ... the file maybe not
      settleManagedStore(ws);
      expect(fs.existsSync(marker)).toBe(false);
      return fs.readFileSync(storeFile, 'utf8');
    };
    expect(crash(false)).toBe(planned.plan.storeBefore);
    expect(crash(true)).toBe(planned.plan.storeAfter);
  });
});
