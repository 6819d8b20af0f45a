// Live capture in the running app: a plugin log line appended while a workspace is open reaches the
// renderer as a 'data' change event (SSE in browser mode), although it was written on main's own connection.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../src/shared/contract';
import { serveWorkspace, type WorkbenchServer } from '../helpers/browser';
import { sharedDir, tempWorkspace } from '../helpers/workspace';

const DAY2_LOG = path.join(sharedDir, 'fixtures', 'reflection-plugin', 'plugin-root-debug', 'logs', 'reflection-2026-03-11.log');
const FIXTURE_LOG = path.join(sharedDir, 'fixtures', 'reflection-plugin', 'plugin-root', 'logs', 'reflection-2026-03-10.log');

function listen(port: number, token: string): { events: ChangeEvent[]; ready: Promise<void>; close(): void } {
  const events: ChangeEvent[] = [];
  let buffer = '';
  const req = http.get({ host: '127.0.0.1', port, path: '/api/events', headers: { 'x-reflection-token': token }, agent: false });
  const ready = new Promise<void>((resolve) =>
    req.on('response', (res) => {
      res.on('data', (c: Buffer) => {
        buffer += c.toString('utf8');
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (frame.startsWith('data: ')) events.push(JSON.parse(frame.slice(6)) as ChangeEvent);
        }
      });
      resolve();
    }),
  );
  return { events, ready, close: () => req.destroy() };
}

async function until(check: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return check();
}

describe('live capture pushes change events to the renderer', () => {
  let dir: string;
  let web: WorkbenchServer;
  let logFile: string;

  beforeAll(async () => {
    dir = tempWorkspace();
    fs.mkdirSync(path.join(dir, 'plugin', 'logs'), { recursive: true });
    fs.mkdirSync(path.join(dir, '.openclaw-reflection'), { recursive: true });
    // A relative plugin root resolves from the workspace folder.
    fs.writeFileSync(
      path.join(dir, '.openclaw-reflection', 'workbench.json'),
      JSON.stringify({ pluginRoot: 'plugin', liveCapture: { pollIntervalMs: 100 } }),
    );
    logFile = path.join(dir, 'plugin', 'logs', 'reflection-2026-03-10.log');
    web = await serveWorkspace(dir);
    await web.runtime.services.ready();
  });
  afterAll(async () => {
    await web?.close();
  });

  it('an appended plugin log line arrives over SSE as a data event from live capture', async () => {
    const sse = listen(web.server.port, web.token);
    await sse.ready;
    const db = web.runtime.session.db;
    expect(db.prepare('SELECT count(*) FROM memory_gate_decisions').pluck().get()).toBe(0);
    const fromLive = () => sse.events.filter((e) => e.type === 'data' && e.source === 'live-capture');
    // Nothing happens while the log is silent: no spurious pushes.
    await new Promise((r) => setTimeout(r, 400));
    expect(fromLive()).toEqual([]);

    const lines = fs.readFileSync(FIXTURE_LOG, 'utf8').trim().split('\n');
    fs.appendFileSync(logFile, `${lines.join('\n')}\n`);
    expect(await until(() => fromLive().length > 0)).toBe(true);
    const decisions = db.prepare('SELECT count(*) FROM memory_gate_decisions').pluck().get() as number;
    expect(decisions).toBeGreaterThan(0);
    expect(db.prepare('SELECT count(*) FROM conversation_turns').pluck().get()).toBeGreaterThan(0);

    // The next day's log file (a later turn) is pushed again, and the counts the status bar shows follow.
    await new Promise((r) => setTimeout(r, 300));
    const pushed = fromLive().length;
    const before = web.runtime.session.current().counts.decisions;
    fs.copyFileSync(DAY2_LOG, path.join(dir, 'plugin', 'logs', 'reflection-2026-03-11.log'));
    expect(await until(() => fromLive().length > pushed && web.runtime.session.current().counts.decisions > before)).toBe(true);
    sse.close();
  }, 30_000);
});
