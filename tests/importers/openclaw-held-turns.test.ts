// The OpenClaw import holds turns, stages them fifty at a time and inserts a batch's turns in one statement (the
// trigram index then flushes once per batch). What it stores must not depend on where a statement or a commit falls.
import fs from 'node:fs';
import path from 'node:path';
import { compress, init } from '@bokuweb/zstd-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { importOpenClaw } from '../../src/core/importers';
import { allContexts, newContext, writeFile } from './helpers';

/** A transcript of `turns` exchanges in OpenClaw's shape; every tenth user message repeats the one before within a minute. */
function transcript(turns: number): string[] {
  const out = [JSON.stringify({ type: 'session', version: 3, id: 'held-1', timestamp: '2026-03-01T00:00:00.000Z', cwd: '/tmp' })];
  let parent: string | null = null;
  let t = Date.UTC(2026, 2, 1);
  const push = (message: Record<string, unknown>) => {
    const id = `e${out.length}`;
    out.push(JSON.stringify({ type: 'message', id, parentId: parent, timestamp: new Date((t += 5_000)).toISOString(), message }));
    parent = id;
  };
  for (let i = 0; i < turns; i++) {
    const text = i % 10 === 9 ? `question ${i - 1} 记录一下` : `question ${i} 记录一下`;
    push({ role: 'user', content: [{ type: 'text', text }] });
    push({ role: 'assistant', content: [{ type: 'text', text: `answer ${i}` }], stopReason: 'stop', model: 'm', provider: 'p' });
  }
  return out;
}

const stored = (db: ReturnType<typeof newContext>['db']) => ({
  turns: db.prepare('SELECT * FROM conversation_turns ORDER BY seq').all(),
  // As the readers return them (ids included): a window written by a later run stores its earlier messages
  // as text, not as references to turns an earlier run wrote, but reads the same.
  contexts: allContexts(db),
  sessions: db.prepare('SELECT * FROM sessions ORDER BY id').all(),
  search: db.prepare(`SELECT rowid FROM turns_fts WHERE turns_fts MATCH '"answer 12"' ORDER BY rowid`).pluck().all(),
});

describe('import openclaw: held turns', () => {
  beforeAll(async () => {
    await init();
  });

  it('stores the same rows whether a transcript is read at once or in pieces that end inside a statement of held turns', async () => {
    const all = transcript(130);
    const whole = newContext();
    const wholeFile = writeFile(path.join(whole.workspaceDir, 'sessions', 'held-1.jsonl'), `${all.join('\n')}\n`);
    const checkpoints = whole.db.pragma('wal_autocheckpoint', { simple: true });
    const report = await importOpenClaw(whole, { source: wholeFile });
    // The import checkpoints less often while it runs, and puts the connection's setting back.
    expect(whole.db.pragma('wal_autocheckpoint', { simple: true })).toBe(checkpoints);
    // 130 exchanges, of which 13 repeat the previous user text within a minute: kept once, as before.
    expect(report.inserted.conversation_turns).toBe(117);
    const pieces = newContext();
    const file = path.join(pieces.workspaceDir, 'sessions', 'held-1.jsonl');
    writeFile(file, '');
    for (const end of [37, 121, 200, all.length]) {
      fs.appendFileSync(file, `${all.slice(fs.readFileSync(file, 'utf8').split('\n').length - 1, end).join('\n')}\n`);
      await importOpenClaw(pieces, { source: file });
    }
    const a = stored(whole.db);
    expect(stored(pieces.db)).toEqual(a);
    expect((a.turns as Array<{ turn_number: number }>).map((t) => t.turn_number)).toEqual([...Array(117).keys()]);
    expect(a.search).toHaveLength(10); // answer 12 and 120..128: exchange 129 repeats 128's question and was not kept
    const again = await importOpenClaw(pieces, { source: file });
    expect(again.inserted.conversation_turns ?? 0).toBe(0);
  });

  it('stores the same rows from an archive read in one transaction, past the held-turn limit, as from its plain transcript', async () => {
    // 2,300 exchanges, 2,070 kept: more than the 2,000 turns held at once, so the archive's one transaction flushes midway.
    const all = transcript(2300);
    const text = `${all.join('\n')}\n`;
    const plain = newContext();
    writeFile(path.join(plain.workspaceDir, 'sessions', 'held-1.jsonl'), text);
    await importOpenClaw(plain, { source: path.join(plain.workspaceDir, 'sessions') });
    const archived = newContext();
    const archive = path.join(archived.workspaceDir, 'sessions', 'held-1.jsonl.reset.2026-03-02T00-00-00.000Z.zst');
    writeFile(archive, Buffer.from(compress(Buffer.from(text), 3)));
    const report = await importOpenClaw(archived, { source: path.join(archived.workspaceDir, 'sessions') });
    expect(report.inserted.conversation_turns).toBe(2070);
    // The turn's metadata names the file it came from; everything else is the same.
    const rows = (db: typeof plain.db) => {
      const s = stored(db);
      return { ...s, turns: (s.turns as Array<Record<string, unknown>>).map((t) => ({ ...t, user_metadata: null })) };
    };
    expect(rows(archived.db)).toEqual(rows(plain.db));
    const search = (db: typeof plain.db) =>
      db.prepare(`SELECT rowid FROM turns_fts WHERE turns_fts MATCH '"question 2000 记录"' ORDER BY rowid`).pluck().all();
    expect(search(archived.db)).toEqual(search(plain.db));
    expect(search(archived.db)).toHaveLength(1);
    archived.db.exec("INSERT INTO turns_fts(turns_fts, rank) VALUES ('integrity-check', 1)");
  });
});
