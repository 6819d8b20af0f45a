import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { backupDatabase } from '../../src/core/lifecycle/backup';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

const TURNS_PER_TX = 5;

// A separate process stands in for the plugin: it writes sessions and turns in transactions of
// TURNS_PER_TX turns until it is told to stop, so a consistent copy always holds a multiple of it.
const writerSource = (dbFile: string, stopFile: string) => `
const fs = require('fs');
const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
const db = new Database(${JSON.stringify(dbFile)});
db.pragma('busy_timeout = 5000');
db.pragma('foreign_keys = ON');
const insSession = db.prepare('INSERT INTO sessions (id, channel_id, created_at, last_activity_at) VALUES (?, ?, ?, ?)');
const insTurn = db.prepare('INSERT INTO conversation_turns (id, session_id, turn_number, user_message_content, agent_message_content, created_at) VALUES (?, ?, ?, ?, ?, ?)');
let n = 0;
const tx = db.transaction(() => {
  const sid = 'channel:test:w' + n;
  insSession.run(sid, 'test', Date.now(), Date.now());
  for (let i = 0; i < ${TURNS_PER_TX}; i++) insTurn.run('t' + n + '-' + i, sid, i, 'hello '.repeat(40) + n, 'reply '.repeat(40), Date.now());
  n++;
});
const loop = () => {
  for (let k = 0; k < 20; k++) tx.immediate();
  if (fs.existsSync(${JSON.stringify(stopFile)})) { console.log(String(n)); db.close(); return; }
  setImmediate(loop);
};
loop();
`;

describe('backup', () => {
  it('takes consistent copies while another process keeps writing', async () => {
    const dir = tempWorkspace();
    const { db, file } = openWorkspaceDatabase(dir);
    const stopFile = path.join(dir, 'stop');
    const script = path.join(dir, 'writer.cjs');
    fs.writeFileSync(script, writerSource(file, stopFile));
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));

    const count = () => db.prepare('SELECT count(*) FROM conversation_turns').pluck().get() as number;
    while (count() < 500) await new Promise((r) => setTimeout(r, 20));

    const copies: { file: string; turnsBefore: number; turnsAfter: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const turnsBefore = count();
      const result = await backupDatabase({ db, workspaceDir: dir }, { output: path.join(dir, 'backups', `copy-${i}.db`) });
      expect(result.integrity).toBe('ok');
      copies.push({ file: result.file, turnsBefore, turnsAfter: count() });
    }
    fs.writeFileSync(stopFile, '');
    expect(await exited).toBe(0);
    const written = Number(out.trim()) * TURNS_PER_TX;
    expect(written).toBeGreaterThan(copies[2]!.turnsAfter - 1);
    expect(copies[2]!.turnsAfter).toBeGreaterThan(copies[0]!.turnsBefore); // the writer really ran during the backups
    db.close();

    for (const c of copies) {
      const copy = new Database(c.file, { readonly: true });
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(copy.pragma('foreign_key_check')).toEqual([]);
      expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
      const turns = copy.prepare('SELECT count(*) FROM conversation_turns').pluck().get() as number;
      const sessions = copy.prepare('SELECT count(*) FROM sessions').pluck().get() as number;
      expect(turns % TURNS_PER_TX).toBe(0);
      expect(turns).toBe(sessions * TURNS_PER_TX);
      expect(turns).toBeGreaterThanOrEqual(c.turnsBefore);
      expect(turns).toBeLessThanOrEqual(c.turnsAfter);
      // the copy is a full schema: FTS and migrations came along
      expect(copy.pragma('user_version', { simple: true })).toBeGreaterThan(0);
      expect(copy.prepare("SELECT count(*) FROM turns_fts WHERE turns_fts MATCH 'hello'").pluck().get()).toBe(turns);
      copy.close();
    }
    expect(fs.readdirSync(path.join(dir, 'backups')).filter((f) => f.includes('partial'))).toEqual([]);
  }, 60_000);

  it('refuses to overwrite an existing file, and the CLI writes a default-named copy', async () => {
    const dir = tempWorkspace();
    const { db } = openWorkspaceDatabase(dir);
    const target = path.join(dir, 'b.db');
    fs.writeFileSync(target, 'keep me');
    await expect(backupDatabase({ db, workspaceDir: dir }, { output: target })).rejects.toThrow(/already exists/);
    expect(fs.readFileSync(target, 'utf8')).toBe('keep me');
    db.close();
    const r = spawnSync('node', [path.join(repoRoot, 'bin', 'reflection.cjs'), 'backup', '--workspace', dir, '--json'], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    const result = JSON.parse(r.stdout) as { file: string; integrity: string };
    expect(result.integrity).toBe('ok');
    expect(path.dirname(result.file)).toBe(path.join(dir, '.openclaw-reflection', 'backups'));
    expect(fs.existsSync(result.file)).toBe(true);
  }, 60_000);
});
