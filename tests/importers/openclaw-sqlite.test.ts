// OpenClaw's current layout, built here from its documented schema (agent schema 20-24): the
// per-agent SQLite store with zstd rows and a cold archive, beside a file store with a compressed
// reset archive, a compaction checkpoint copy and a trajectory file.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { compress, init } from '@bokuweb/zstd-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { importOpenClaw } from '../../src/core/importers';
import { isPrimaryTranscriptName } from '../../src/core/importers/openclawSessions';
import { contextOf, count, dataCounts, newContext, writeFile } from './helpers';

const SCHEMA = `
CREATE TABLE session_nodes (session_key TEXT NOT NULL PRIMARY KEY, current_session_id TEXT NOT NULL, entry_json TEXT NOT NULL,
  entry_valid INTEGER NOT NULL DEFAULT 1, updated_at INTEGER NOT NULL, status TEXT, archived_at INTEGER, created_at INTEGER) STRICT;
CREATE TABLE session_windows (session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL, previous_session_id TEXT, reason TEXT) STRICT;
CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL,
  event_zstd BLOB, event_utf8_bytes INTEGER CHECK (event_utf8_bytes IS NULL OR event_utf8_bytes >= 0), navigation_json TEXT,
  PRIMARY KEY (session_id, seq),
  CHECK ((event_json IS NOT NULL AND event_zstd IS NULL) OR (event_json IS NULL AND event_zstd IS NOT NULL AND event_utf8_bytes IS NOT NULL))) STRICT;
CREATE TABLE transcript_rewrite_watermarks (session_id TEXT NOT NULL PRIMARY KEY, generation TEXT NOT NULL, updated_at INTEGER NOT NULL) STRICT;
CREATE TABLE session_transcript_cold_archives (session_id TEXT NOT NULL PRIMARY KEY, generation TEXT NOT NULL, archive_name TEXT NOT NULL UNIQUE,
  archive_sha256 TEXT NOT NULL CHECK (length(archive_sha256) = 64), event_count INTEGER NOT NULL CHECK (event_count >= 1),
  raw_bytes INTEGER NOT NULL, archive_bytes INTEGER NOT NULL, last_seq INTEGER NOT NULL, archived_at INTEGER NOT NULL,
  storage TEXT NOT NULL CHECK (storage IN ('file', 'sqlite')), archive_blob BLOB,
  CHECK ((storage = 'file' AND archive_blob IS NULL) OR (storage = 'sqlite' AND archive_blob IS NOT NULL))) STRICT;
`;

const KEY = 'agent:main:telegram:direct:42';
const SESSION = 'channel:telegram:direct:42';
const T0 = Date.UTC(2026, 10, 20, 9);
const LONG = `长回复 ${'这是一个足够长、会被压缩存储的回答。'.repeat(80)}`;

type Ev = Record<string, unknown>;
let n = 0;
const at = (i: number) => new Date(T0 + i * 1000).toISOString();
const user = (id: string, parent: string | null, text: string): Ev => ({
  type: 'message',
  id,
  parentId: parent,
  timestamp: at(++n),
  message: { role: 'user', content: [{ type: 'text', text }] },
});
const reply = (id: string, parent: string, text: string): Ev => ({
  type: 'message',
  id,
  parentId: parent,
  timestamp: at(++n),
  message: { role: 'assistant', content: [{ type: 'text', text }], model: 'gpt-x', provider: 'openai', stopReason: 'stop' },
});

/** OpenClaw stores an event compressed (level 1) when it is 1 KiB or more and compression saves enough. */
function row(db: Database.Database, sid: string, seq: number, e: Ev): void {
  const json = JSON.stringify(e);
  const raw = Buffer.from(json);
  const frame = raw.length >= 1024 ? Buffer.from(compress(raw, 1)) : undefined;
  const nav = JSON.stringify({ version: 1 });
  if (frame && frame.length < raw.length * 0.9) {
    db.prepare('INSERT INTO transcript_events VALUES (?, ?, NULL, ?, ?, ?, ?)').run(sid, seq, T0 + seq, frame, raw.length, nav);
  } else db.prepare('INSERT INTO transcript_events VALUES (?, ?, ?, ?, NULL, NULL, NULL)').run(sid, seq, json, T0 + seq);
}

function buildState(root: string): { db: Database.Database; file: string } {
  const file = path.join(root, 'agents', 'main', 'agent', 'openclaw-agent.sqlite');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(SCHEMA);
  const entry = {
    sessionId: 'win-2',
    sessionStartedAt: T0,
    updatedAt: T0 + 60_000,
    chatType: 'direct',
    lastChannel: 'telegram',
    displayName: 'Ada',
  };
  db.prepare('INSERT INTO session_nodes VALUES (?, ?, ?, 1, ?, NULL, NULL, ?)').run(KEY, 'win-2', JSON.stringify(entry), T0, T0);
  db.prepare('INSERT INTO session_windows VALUES (?, ?, NULL, NULL), (?, ?, ?, ?)').run('win-1', KEY, 'win-2', KEY, 'win-1', 'daily');

  // The older window went cold: its events live in sessions/cold/<sha256>.jsonl.zst.
  const coldEvents = [
    { type: 'session', id: 'win-1', timestamp: at(0) },
    user('c1', null, 'cold question'),
    reply('c2', 'c1', 'cold answer'),
  ];
  const coldBytes = Buffer.from(compress(Buffer.from(`${coldEvents.map((e) => JSON.stringify(e)).join('\n')}\n`), 3));
  const sha = createHash('sha256').update(coldBytes).digest('hex');
  writeFile(path.join(root, 'agents', 'main', 'sessions', 'cold', `${sha}.jsonl.zst`), coldBytes);
  db.prepare("INSERT INTO session_transcript_cold_archives VALUES ('win-1', 'g1', ?, ?, 3, 0, ?, 3, ?, 'file', NULL)").run(
    `${sha}.jsonl.zst`,
    sha,
    coldBytes.length,
    T0,
  );

  const hot: Ev[] = [
    { type: 'session', id: 'win-2', timestamp: at(10) },
    user('u1', null, 'first question'),
    reply('a1', 'u1', LONG),
    { type: 'reset', id: 'r1', parentId: 'a1', timestamp: at(20) },
    user('u2', 'r1', 'after the reset'),
    reply('a2', 'u2', 'fresh answer'),
  ];
  hot.forEach((e, i) => row(db, 'win-2', i + 1, e));
  db.prepare("INSERT INTO transcript_rewrite_watermarks VALUES ('win-2', '1', ?)").run(T0);
  return { db, file };
}

function buildFileStore(root: string): void {
  const dir = path.join(root, 'agents', 'main', 'sessions');
  const lines = (evs: Ev[]) => `${evs.map((e) => JSON.stringify(e)).join('\n')}\n`;
  const live = [{ type: 'session', id: 'file-s', timestamp: at(30) }, user('f1', null, 'file question'), reply('f2', 'f1', 'file answer')];
  writeFile(path.join(dir, 'file-s.jsonl'), lines(live));
  // A compaction checkpoint copy holds the same entries again, and a trajectory is not a transcript.
  writeFile(path.join(dir, 'file-s.checkpoint.0b7e3c1a-5d2f-4a8b-9c6d-1e2f3a4b5c6d.jsonl'), lines(live));
  writeFile(
    path.join(dir, 'file-s.trajectory.jsonl'),
    lines([{ type: 'message', id: 't1', parentId: null, timestamp: at(31), message: { role: 'user', content: 'tool trace' } }]),
  );
  const archived = [
    { type: 'session', id: 'old-s', timestamp: at(40) },
    user('o1', null, 'archived question'),
    reply('o2', 'o1', 'archived answer'),
  ];
  writeFile(path.join(dir, 'old-s.jsonl.reset.2026-11-19T08-00-00.000Z.zst'), Buffer.from(compress(Buffer.from(lines(archived)), 3)));
}

const turnsOf = (db: Database.Database, session: string) =>
  db
    .prepare(
      'SELECT user_message_content AS u, agent_message_content AS a, user_metadata AS meta, id FROM conversation_turns WHERE session_id = ? ORDER BY created_at',
    )
    .all(session) as Array<{ u: string; a: string; meta: string; id: string }>;

describe('import openclaw: the SQLite store and compressed archives', () => {
  beforeAll(async () => {
    await init();
  });

  it('imports hot zstd rows, the cold archive, reset boundaries and the file store, but no checkpoint or trajectory copies', async () => {
    const ctx = newContext();
    const root = path.join(ctx.workspaceDir, 'state');
    const { db } = buildState(root);
    buildFileStore(root);
    expect(db.prepare('SELECT count(*) FROM transcript_events WHERE event_zstd IS NOT NULL').pluck().get()).toBe(1);

    const report = await importOpenClaw(ctx, { source: root });
    expect(report.skipped).toEqual([]);
    expect(report.status).toBe('ok');
    const turns = turnsOf(ctx.db, SESSION);
    expect(turns.map((t) => t.u)).toEqual(['cold question', 'first question', 'after the reset']);
    expect(turns[1]!.a).toBe(LONG);
    const afterReset = JSON.parse(turns[2]!.meta);
    expect(afterReset.afterReset).toBe(true);
    expect(afterReset.before).toEqual([expect.objectContaining({ kind: 'reset', entryId: 'r1' })]);
    // The context after a reset starts again: the earlier exchange is not in it.
    expect(contextOf(ctx.db, turns[2]!.id).map((c) => c.message)).toEqual(['after the reset', 'fresh answer']);
    expect(ctx.db.prepare("SELECT json_extract(metadata, '$.openclaw.displayName') FROM sessions WHERE id = ?").pluck().get(SESSION)).toBe(
      'Ada',
    );

    expect(turnsOf(ctx.db, 'openclaw:file-s').map((t) => t.u)).toEqual(['file question']);
    expect(turnsOf(ctx.db, 'openclaw:old-s').map((t) => t.u)).toEqual(['archived question']);
    expect(count(ctx.db, "sessions WHERE id LIKE '%checkpoint%' OR id LIKE '%trajectory%'")).toBe(0);
    expect(count(ctx.db, "conversation_turns WHERE user_message_content = 'tool trace'")).toBe(0);
    expect(report.ignored).toMatchObject({
      'checkpoint copies (not session transcripts)': 1,
      'trajectories (not session transcripts)': 1,
      'reset boundaries marked': 1,
    });
    expect(count(ctx.db, 'conversation_turns')).toBe(5);

    // Nothing new: nothing added, nothing read twice.
    const before = dataCounts(ctx.db);
    const again = await importOpenClaw(ctx, { source: root });
    expect(again.status).toBe('nothing_new');
    expect(dataCounts(ctx.db)).toEqual(before);

    // The gateway appends (one row compressed): only the new turn comes in.
    const more = `${LONG} 第二次`;
    row(db, 'win-2', 7, user('u3', 'a2', 'one more'));
    row(db, 'win-2', 8, reply('a3', 'u3', more));
    const third = await importOpenClaw(ctx, { source: root });
    expect(third.inserted.conversation_turns).toBe(1);
    expect(
      turnsOf(ctx.db, SESSION)
        .map((t) => t.a)
        .at(-1),
    ).toBe(more);
    expect(count(ctx.db, 'conversation_turns')).toBe(6);
    db.close();
  });

  it('reads while the gateway holds the database, leaves its WAL alone, and stops politely when it is locked', async () => {
    const ctx = newContext();
    const root = path.join(ctx.workspaceDir, 'state');
    const { db, file } = buildState(root);
    // The gateway keeps its connection open with uncheckpointed writes in the WAL.
    db.pragma('wal_autocheckpoint = 0');
    row(db, 'win-2', 7, user('u3', 'a2', 'in the wal'));
    row(db, 'win-2', 8, reply('a3', 'u3', 'answered in the wal'));
    const walBefore = fs.statSync(`${file}-wal`).size;
    const report = await importOpenClaw(ctx, { source: root });
    expect(report.status).toBe('ok');
    expect(count(ctx.db, "conversation_turns WHERE user_message_content = 'in the wal'")).toBe(1);
    expect(fs.statSync(`${file}-wal`).size).toBe(walBefore);
    row(db, 'win-2', 9, user('u4', 'a3', 'the gateway still writes'));
    db.close();

    // A rollback-journal store under an exclusive lock answers SQLITE_BUSY: the run says so and keeps what it has.
    const other = newContext();
    const lockedRoot = path.join(other.workspaceDir, 'state');
    const locked = buildState(lockedRoot).db;
    locked.pragma('journal_mode = DELETE');
    locked.exec('BEGIN EXCLUSIVE');
    locked.prepare('UPDATE session_nodes SET updated_at = updated_at + 1').run();
    const busy = await importOpenClaw(other, { source: lockedRoot });
    expect(busy.notes.join(' ')).toMatch(/busy/);
    locked.exec('COMMIT');
    const after = await importOpenClaw(other, { source: lockedRoot });
    expect(after.inserted.conversation_turns).toBe(3);
    locked.close();
  });

  it('reads a window again from the start when OpenClaw rewrites it, without duplicating turns', async () => {
    const ctx = newContext();
    const root = path.join(ctx.workspaceDir, 'state');
    const { db } = buildState(root);
    await importOpenClaw(ctx, { source: root });
    const before = count(ctx.db, 'conversation_turns');
    db.prepare("UPDATE transcript_rewrite_watermarks SET generation = '2' WHERE session_id = 'win-2'").run();
    const again = await importOpenClaw(ctx, { source: root });
    expect(again.notes.join(' ')).toMatch(/rewritten/);
    expect(count(ctx.db, 'conversation_turns')).toBe(before);
    db.close();
  });

  it('reads a cold archive embedded in its row (backups), and reports one whose file is missing', async () => {
    const ctx = newContext();
    const root = path.join(ctx.workspaceDir, 'state');
    const { db } = buildState(root);
    const coldDir = path.join(root, 'agents', 'main', 'sessions', 'cold');
    const name = fs.readdirSync(coldDir)[0];
    if (!name) throw new Error('the importer wrote no cold archive');
    const bytes = fs.readFileSync(path.join(coldDir, name));
    db.prepare("UPDATE session_transcript_cold_archives SET storage = 'sqlite', archive_blob = ? WHERE session_id = 'win-1'").run(bytes);
    fs.rmSync(path.join(coldDir, name));
    const report = await importOpenClaw(ctx, { source: root });
    expect(report.skipped).toEqual([]);
    expect(turnsOf(ctx.db, SESSION).map((t) => t.u)).toEqual(['cold question', 'first question', 'after the reset']);

    const other = newContext();
    const otherRoot = path.join(other.workspaceDir, 'state');
    buildState(otherRoot).db.close();
    fs.rmSync(path.join(otherRoot, 'agents', 'main', 'sessions', 'cold'), { recursive: true });
    const missing = await importOpenClaw(other, { source: otherRoot });
    expect(missing.skipped.map((s) => s.reason)).toEqual(['cold archive missing: its history could not be read']);
    expect(turnsOf(other.db, SESSION).map((t) => t.u)).toEqual(['first question', 'after the reset']);
    db.close();
  });

  it('reads an older or partial store: event_json only, no windows, a cold table without its columns', async () => {
    const ctx = newContext();
    const file = path.join(ctx.workspaceDir, 'state', 'agents', 'main', 'agent', 'openclaw-agent.sqlite');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const db = new Database(file);
    db.exec(`CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT NOT NULL, PRIMARY KEY (session_id, seq));
      CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY, current_session_id TEXT);
      CREATE TABLE session_transcript_cold_archives (session_id TEXT PRIMARY KEY);`);
    [user('p1', null, 'plain question'), reply('p2', 'p1', 'plain answer')].forEach((e, i) =>
      db.prepare("INSERT INTO transcript_events VALUES ('old-1', ?, ?)").run(i + 1, JSON.stringify(e)),
    );
    db.close();
    const report = await importOpenClaw(ctx, { source: path.join(ctx.workspaceDir, 'state') });
    expect(report.skipped).toEqual([]);
    expect(turnsOf(ctx.db, 'openclaw:old-1').map((t) => t.a)).toEqual(['plain answer']);
  });

  it("follows OpenClaw's primary-transcript filename rule", () => {
    const primary = ['3f9c2b1e.jsonl', '3f9c2b1e-topic-42.jsonl', 'my.checkpoint.notes.jsonl', 'a.reset.b.jsonl'];
    const not = [
      'sessions.json',
      '3f9c2b1e.trajectory.jsonl',
      '3f9c2b1e.checkpoint.0b7e3c1a-5d2f-4a8b-9c6d-1e2f3a4b5c6d.jsonl',
      '3f9c2b1e.jsonl.reset.2026-11-19T08-00-00.000Z',
      '3f9c2b1e.jsonl.reset.2026-11-19T08-00-00.000Z.zst',
      '3f9c2b1e.jsonl.deleted.2026-11-19T08-00-00Z',
      '3f9c2b1e.jsonl.bak.2026-11-19T08-00-00.000Z',
      'sessions.json.bak.3',
      '3f9c2b1e.trajectory-path.json',
    ];
    expect(primary.filter(isPrimaryTranscriptName)).toEqual(primary);
    expect(not.filter(isPrimaryTranscriptName)).toEqual([]);
  });
});
