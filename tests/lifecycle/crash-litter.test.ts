// Issue 14 item 4: a workbench process killed with SIGKILL while it holds a memory-file lock and has
// partial files open leaves litter. The next write takes the dead process's lock at once (not after
// the 5 s stale time), a live holder is still waited for, and opening the workspace removes the partials.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { createAppRuntime } from '../../src/api/runtime';
import { LOCK_STALE_MS, writeMemoryFile } from '../../src/core/files/memoryFiles';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

const CHILD = `
const fs = require('node:fs');
const path = require('node:path');
require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register();
const { withMemoryFileLock } = require(${JSON.stringify(path.join(repoRoot, 'src', 'core', 'files', 'memoryFiles.ts'))});
const [dir, ready] = process.argv.slice(2);
const state = path.join(dir, '.openclaw-reflection');
fs.mkdirSync(path.join(state, 'backups'), { recursive: true });
fs.mkdirSync(path.join(state, 'exports'), { recursive: true });
// What a backup and an archive export hold open while they run (named as they name them).
fs.writeFileSync(path.join(state, 'backups', 'reflection-1.db.partial-' + process.pid), 'half a database');
fs.writeFileSync(path.join(state, 'exports', 'conversations-start_2026-03-10.jsonl.partial-' + process.pid), '{"turn":');
withMemoryFileLock(dir, 'MEMORY.md', () => {
  fs.writeFileSync(ready, 'locked');
  setInterval(() => {}, 1000); // stay alive, holding the lock, until killed
  return new Promise(() => {});
});
`;

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

async function lockingChild(dir: string): Promise<ChildProcess> {
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-child-')), 'child.cjs');
  fs.writeFileSync(script, CHILD);
  const ready = `${script}.ready`;
  const child = spawn(process.execPath, [script, dir, ready], { cwd: repoRoot, stdio: 'ignore' });
  children.push(child);
  const deadline = Date.now() + 20_000;
  while (!fs.existsSync(ready)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('the child never took the lock');
    await new Promise((r) => setTimeout(r, 25));
  }
  return child;
}

describe('crash litter (kill -9)', () => {
  it('takes a dead process lock at once, waits for a live one, and cleans partial files on open', async () => {
    const dir = tempWorkspace();
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), '# Memory\n');

    // A live holder is respected: the write gives up with Locked.
    const live = await lockingChild(dir);
    await expect(writeMemoryFile(dir, 'MEMORY.md', 'while held\n', { timeoutMs: 600 })).rejects.toMatchObject({ kind: 'Locked' });

    live.kill('SIGKILL');
    await new Promise((r) => live.once('exit', r));
    const lockDir = path.join(dir, 'MEMORY.md.lock');
    expect(fs.existsSync(lockDir)).toBe(true);
    const litter = [
      path.join(dir, '.openclaw-reflection', 'backups', `reflection-1.db.partial-${live.pid}`),
      path.join(dir, '.openclaw-reflection', 'exports', `conversations-start_2026-03-10.jsonl.partial-${live.pid}`),
    ];
    for (const f of litter) expect(fs.existsSync(f)).toBe(true);

    const started = performance.now();
    await writeMemoryFile(dir, 'MEMORY.md', '# Memory\n\n- after the crash\n');
    const tookMs = performance.now() - started;
    expect(tookMs).toBeLessThan(LOCK_STALE_MS / 2);
    expect(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8')).toContain('after the crash');
    expect(fs.existsSync(lockDir)).toBe(false);

    // Opening the workspace (app or browser mode) removes the partial files of the dead process.
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-state-'));
    const runtime = createAppRuntime({ mode: 'web', stateDir, log: { warn: () => undefined } });
    try {
      runtime.session.open(dir);
      await runtime.services.ready();
      for (const f of litter) expect(fs.existsSync(f), f).toBe(false);
    } finally {
      await runtime.close();
      fs.rmSync(stateDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('leaves a partial file of a running process alone', async () => {
    const dir = tempWorkspace();
    const running = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    children.push(running);
    const backups = path.join(dir, '.openclaw-reflection', 'backups');
    fs.mkdirSync(backups, { recursive: true });
    const partial = path.join(backups, `reflection-2.db.partial-${running.pid}`);
    fs.writeFileSync(partial, 'in progress');
    const { cleanCrashLitter } = await import('../../src/core/lifecycle/outputFiles');
    expect(cleanCrashLitter(dir)).toEqual([]);
    expect(fs.existsSync(partial)).toBe(true);
    running.kill('SIGKILL');
    await new Promise((r) => running.once('exit', r));
    expect(cleanCrashLitter(dir)).toEqual([partial]);
  });
});
