// A small recorded workspace on disk: the plugin's writes are recorded through RecorderCore and
// the memory files are written for real, as the plugin would.
import fs from 'node:fs';
import path from 'node:path';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { RecorderCore } from '../../src/core/recorder/recorder';
import type { ServiceContext } from '../../src/core/context';
import type { MemoryFileName } from '../../src/shared/domain';
import { decisionForFile } from '../../src/shared/domain';
import { tempWorkspace } from '../helpers/workspace';

export interface Fixture {
  dir: string;
  db: DB;
  core: RecorderCore;
  ctx: ServiceContext;
  clock: { t: number };
  /** Records a plugin write that changes `file` from its current disk content to `after`, and writes it to disk. */
  pluginWrite: (file: MemoryFileName, after: string | null, opts?: { session?: string; fact?: string }) => string;
  read: (file: MemoryFileName) => string | null;
  write: (file: MemoryFileName, content: string) => void;
  close: () => void;
}

export function makeFixture(dir = tempWorkspace('reflection-guardian-')): Fixture {
  const { db } = openWorkspaceDatabase(dir);
  const core = new RecorderCore(db);
  const clock = { t: 1_700_000_000_000 };
  const tick = () => (clock.t += 1000);
  const ctx: ServiceContext = { db, workspaceDir: dir, now: () => tick(), actor: 'tester' };
  const read = (file: MemoryFileName) => {
    const p = path.join(dir, file);
    return fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : null;
  };
  const write = (file: MemoryFileName, content: string) => fs.writeFileSync(path.join(dir, file), content);
  const sessions = new Set<string>();
  const pluginWrite: Fixture['pluginWrite'] = (file, after, opts = {}) => {
    const session = opts.session ?? 'channel:test:1';
    const at = tick();
    if (!sessions.has(session)) {
      core.upsertSession({ id: session, channelId: 'test', createdAt: at, lastActivityAt: at });
      sessions.add(session);
    }
    const turn = core.insertTurn({
      sessionId: session,
      userMessage: { content: `tell me about ${file}` },
      agentReply: { content: 'ok' },
      createdAt: at,
    });
    const fact = opts.fact ?? `fact for ${file} at ${at}`;
    const decisionId = core.insertDecision({
      turnId: turn.id,
      sessionId: session,
      decision: decisionForFile(file),
      reason: 'worth remembering',
      candidateFact: fact,
      llmCall: { model: 'test-model' },
      createdAt: at,
    });
    const before = read(file);
    if (after === null) fs.rmSync(path.join(dir, file), { force: true });
    else write(file, after);
    return core.recordWrite({
      decisionId,
      turnId: turn.id,
      sessionId: session,
      targetFile: file,
      candidateFact: fact,
      before,
      after,
      status: 'written',
      createdAt: at,
    }).auditId;
  };
  return { dir, db, core, ctx, clock, pluginWrite, read, write, close: () => db.close() };
}
