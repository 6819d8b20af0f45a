import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { decodeTime, isValid } from 'ulid';
import { fastUlid } from '../../src/core/recorder/recorder';
import { openRecorder } from '../../src/recorder';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

interface Writer {
  /** Settles once the writer has opened the database and waits for "go". */
  ready: Promise<void>;
  go(): void;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function startWriter(ws: string, name: string, count: number): Writer {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'helpers', 'concurrentWriter.ts'), ws, name, String(count)],
    {
      cwd: repoRoot,
    },
  );
  let stdout = '';
  let stderr = '';
  let signalReady = () => {};
  const ready = new Promise<void>((resolve) => (signalReady = resolve));
  child.stdout.on('data', (d) => {
    stdout += d;
    if (stdout.includes('ready\n')) signalReady();
  });
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => {
      signalReady(); // a writer that died before "ready" must not leave the test waiting
      resolve({ code, stdout, stderr });
    });
  });
  return { ready, go: () => child.stdin.end('go\n'), done };
}

const count = (db: ReturnType<typeof openWorkspaceDatabase>['db'], sql: string) => db.prepare(sql).pluck().get() as number;

describe('recorder', () => {
  it('two processes writing the same database at once lose no rows and surface no busy errors', async () => {
    const ws = tempWorkspace();
    openWorkspaceDatabase(ws).db.close();
    const N = 500;
    // Both writers start writing only once both are ready, so their rows can interleave.
    const wa = startWriter(ws, 'a', N);
    const wb = startWriter(ws, 'b', N);
    await Promise.all([wa.ready, wb.ready]);
    wa.go();
    wb.go();
    const [a, b] = await Promise.all([wa.done, wb.done]);
    expect(a.stderr + b.stderr).toBe('');
    expect([a.code, b.code]).toEqual([0, 0]);
    const { db } = openWorkspaceDatabase(ws);
    expect(count(db, 'SELECT count(*) FROM conversation_turns')).toBe(2 * N);
    expect(count(db, 'SELECT count(*) FROM conversation_contexts')).toBe(4 * N);
    expect(count(db, 'SELECT count(*) FROM memory_gate_decisions')).toBe(2 * N);
    // The shared session's turn numbers were assigned inside each write transaction: 0..N-1, no gaps, no clashes.
    const numbers = db.prepare("SELECT turn_number FROM conversation_turns WHERE session_id = 'shared' ORDER BY turn_number").pluck().all();
    expect(numbers).toEqual(Array.from({ length: N }, (_, i) => i));
    // The writers really overlapped: their rows interleave.
    const range = (who: string) =>
      db.prepare(`SELECT min(seq) AS lo, max(seq) AS hi FROM conversation_turns WHERE user_message_content LIKE '${who} %'`).get() as {
        lo: number;
        hi: number;
      };
    const ra = range('a');
    const rb = range('b');
    expect(ra.lo < rb.hi && rb.lo < ra.hi).toBe(true);
    expect(count(db, 'SELECT count(*) FROM turns_fts WHERE turns_fts MATCH \'"question 299"\'')).toBe(2);
    db.close();
  }, 120_000);

  it('invalid input is refused with the field named, and nothing is written', async () => {
    const ws = tempWorkspace();
    const rec = openRecorder({ workspaceDir: ws });
    const db = rec.core.db;
    const rows = () =>
      ['sessions', 'conversation_turns', 'conversation_contexts', 'memory_gate_decisions', 'write_guardian_audit', 'file_snapshots'].map(
        (t) => count(db, `SELECT count(*) FROM ${t}`),
      );
    await expect(rec.upsertSession({ id: 's', createdAt: 1, lastActivityAt: 1 } as never)).rejects.toThrow(/upsertSession: channelId/);
    await expect(rec.upsertSession({ id: 's', channelId: 'c', createdAt: 1, lastActivityAt: 1, metadata: 'x' as never })).rejects.toThrow(
      /metadata/,
    );
    expect(rows()).toEqual([0, 0, 0, 0, 0, 0]);
    await rec.upsertSession({ id: 's', channelId: 'c', createdAt: 1, lastActivityAt: 1 });
    await expect(
      rec.insertTurn({ sessionId: 'ghost', userMessage: { content: 'a' }, agentReply: { content: 'b' }, createdAt: 2 }),
    ).rejects.toThrow(/sessionId/);
    await expect(
      rec.insertTurn({ sessionId: 's', userMessage: { content: 'a' }, agentReply: { content: 'b' }, createdAt: -5 }),
    ).rejects.toThrow(/createdAt/);
    const { id: turnId } = await rec.insertTurn({
      sessionId: 's',
      userMessage: { content: 'a' },
      agentReply: { content: 'b' },
      createdAt: 2,
    });
    const base = rows();
    // The third item is bad: the first two must not be written either.
    await expect(
      rec.insertContextBatch(turnId, [
        { role: 'user', message: 'one', timestamp: 1 },
        { role: 'agent', message: 'two', timestamp: 2 },
        { role: 'system' as never, message: 'three', timestamp: 3 },
      ]),
    ).rejects.toThrow(/context\.2: role/);
    await expect(
      rec.insertDecision({ turnId, sessionId: 's', decision: 'MAYBE' as never, reason: 'r', llmCall: { model: 'm' }, createdAt: 3 }),
    ).rejects.toThrow(/decision/);
    await expect(
      rec.insertDecision({ turnId, sessionId: 's', decision: 'NO_WRITE', reason: 'r', llmCall: {} as never, createdAt: 3 }),
    ).rejects.toThrow(/llmCall\.model/);
    await expect(
      rec.recordWrite({ targetFile: 'NOTES.md' as never, status: 'written', source: 'external', before: 'a', after: 'b', createdAt: 4 }),
    ).rejects.toThrow(/targetFile/);
    await expect(rec.recordWrite({ targetFile: 'USER.md', status: 'written', before: 'a', after: 'b', createdAt: 4 })).rejects.toThrow(
      /decisionId/,
    );
    await expect(rec.recordWrite({ targetFile: 'USER.md', status: 'done' as never, source: 'external', createdAt: 4 })).rejects.toThrow(
      /status/,
    );
    expect(rows()).toEqual(base);
    rec.close();
  });

  it('makes valid, unique ULIDs that carry the row time', () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => fastUlid(1_700_000_000_000 + i));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every(isValid)).toBe(true);
    expect(decodeTime(ids[123]!)).toBe(1_700_000_000_123);
    // Every Crockford character shows up in the random part: the byte-to-character mapping covers the alphabet.
    expect(new Set(ids.map((id) => id.slice(10)).join('')).size).toBe(32);
  });

  it('batch is all or nothing, and identical snapshots are stored once', async () => {
    const ws = tempWorkspace();
    const rec = openRecorder({ workspaceDir: ws });
    const core = rec.core;
    core.upsertSession({ id: 's', channelId: 'c', createdAt: 1, lastActivityAt: 1 });
    expect(() =>
      core.batch(() => {
        core.insertTurn({ sessionId: 's', userMessage: { content: 'kept?' }, agentReply: { content: 'no' }, createdAt: 2 });
        core.insertTurn({ sessionId: 's', turnNumber: 0, userMessage: { content: 'clash' }, agentReply: { content: 'x' }, createdAt: 3 });
      }),
    ).toThrow(/already exists/);
    expect(count(core.db, 'SELECT count(*) FROM conversation_turns')).toBe(0);
    const w1 = core.recordWrite({
      targetFile: 'USER.md',
      status: 'written',
      source: 'external',
      before: '# U\n',
      after: '# U\n- a\n',
      createdAt: 5,
    });
    const w2 = core.recordWrite({
      targetFile: 'USER.md',
      status: 'written',
      source: 'external',
      before: '# U\n- a\n',
      after: '# U\n',
      createdAt: 6,
    });
    expect(w2.beforeSnapshotId).toBe(w1.afterSnapshotId);
    expect(w2.afterSnapshotId).toBe(w1.beforeSnapshotId);
    expect(w2.lines).toEqual({ added: 0, removed: 1, modified: 0 });
    expect(count(core.db, 'SELECT count(*) FROM file_snapshots')).toBe(2);
    rec.close();
  });
});
