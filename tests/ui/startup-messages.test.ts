// Issue 17, gap 6: `npm run web` says it generated a demo workspace and where; `npm start`'s
// preparation reports a failed tool with its reason and no stack trace before the clear message.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(__dirname, '..', '..');
const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-startup-'));
afterAll(() => fs.rmSync(stateDir, { recursive: true, force: true }));

/** Starts `reflection open --web` and resolves with its stdout once the URL is printed, then stops it. */
function openWeb(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'reflection.cjs'), 'open', '--web', '--port', '0'], {
      env: { ...process.env, REFLECTION_STATE_DIR: stateDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no URL within 60 s: ${out}${err}`));
    }, 60_000);
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (/http:\/\/127\.0\.0\.1:\d+/.test(out) && out.includes('Ctrl+C')) {
        clearTimeout(timer);
        child.kill('SIGTERM');
        resolve(out);
      }
    });
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (!/Ctrl\+C/.test(out)) reject(new Error(`exited ${code}: ${out}${err}`));
    });
  });
}

describe('startup messages', () => {
  it('`open --web` without a workspace says it generated a demo workspace, and where', async () => {
    const out = await openWeb();
    const demoDir = path.join(stateDir, 'demo-workspace');
    expect(out).toMatch(/generated demo workspace/);
    expect(out).toContain(demoDir);
    expect(fs.existsSync(path.join(demoDir, '.openclaw-reflection', 'reflection.db'))).toBe(true);
  }, 90_000);

  it("prepare-electron reports a tool's failure reason without the stack trace", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- prepare-electron is a CommonJS script
    const { reasonOf } = require(path.join(repoRoot, 'scripts', 'prepare-electron.cjs')) as { reasonOf: (s: string) => string };
    const output = [
      'TypeError: fetch failed',
      '    at node:internal/deps/undici/undici:14976:13',
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      '    at async FetchDownloader.download (file:///x/node_modules/@electron/get/dist/FetchDownloader.js:46:30)',
    ].join('\n');
    expect(reasonOf(output)).toBe('TypeError: fetch failed');
  });
});
