// The API's own cost: one gate.list page (50 rows) called directly on the service, through the
// handler registry (zod validation + DTO mapping), and over browser mode's HTTP (token, rate limit,
// JSON); and the lag of a change pushed over SSE after another connection commits.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { BenchSection } from '../index';
import { fmt, percentile } from '../util';
import { createAppRuntime } from '../../src/api/runtime';
import { dbPathFor, openDatabaseFile } from '../../src/core/db/connection';
import { generateDemoWorkspace } from '../../src/core/demo';
import { listDecisions } from '../../src/core/gate';
import { startWebServer } from '../../src/web/server';

function post(port: number, token: string, channel: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: `/api/${channel}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-reflection-token': token },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString()));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const section: BenchSection = {
  name: 'app API (registry, browser mode)',
  async run() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-app-'));
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-app-state-'));
    generateDemoWorkspace(dir, { sessions: 200 });
    const runtime = createAppRuntime({ mode: 'web', stateDir, log: { warn: () => undefined } });
    runtime.session.open(dir);
    const server = await startWebServer({
      runtime,
      rendererDir: path.join(__dirname, '..', '..', 'out', 'renderer'),
      rateLimit: { capacity: 1e9, refillPerSecond: 1e9 },
    });
    const N = 300;
    const input = { limit: 50, decision: 'UPDATE_USER' as const };
    const ctx = runtime.session.serviceContext();
    const direct: number[] = [];
    const registry: number[] = [];
    const overHttp: number[] = [];
    for (let i = 0; i < 20; i++) await post(server.port, server.token, 'gate.list', JSON.stringify(input));
    for (let i = 0; i < N; i++) {
      let t = performance.now();
      listDecisions(ctx, input);
      direct.push(performance.now() - t);
      t = performance.now();
      await runtime.registry.dispatch('gate.list', input);
      registry.push(performance.now() - t);
      t = performance.now();
      await post(server.port, server.token, 'gate.list', JSON.stringify(input));
      overHttp.push(performance.now() - t);
    }
    const p = (xs: number[]) => `p50 ${fmt(percentile(xs, 50))} ms, p95 ${fmt(percentile(xs, 95))} ms`;
    console.log(`gate.list (50 rows) direct service:   ${p(direct)}`);
    console.log(
      `gate.list via handler registry:       ${p(registry)}  (ratio p50 ${fmt(percentile(direct, 50) / percentile(registry, 50))})`,
    );
    console.log(
      `gate.list over HTTP (browser mode):   ${p(overHttp)}  (ratio p50 ${fmt(percentile(direct, 50) / percentile(overHttp, 50))})`,
    );

    // SSE push lag: another connection commits; how long until the event arrives (poll every 500 ms).
    const lags: number[] = [];
    const other = openDatabaseFile(dbPathFor(dir));
    await new Promise<void>((resolve) => {
      const req = http.get(
        { host: '127.0.0.1', port: server.port, path: '/api/events', headers: { 'x-reflection-token': server.token } },
        (res) => {
          let wroteAt = 0;
          let i = 0;
          const write = () => {
            wroteAt = performance.now();
            other.db
              .prepare('INSERT INTO exclusions (id, kind, value, created_at) VALUES (?, ?, ?, 1)')
              .run(`bench-${i}`, 'account', `a${i}`);
            i++;
          };
          res.on('data', (c: Buffer) => {
            if (!c.toString().includes('"type":"data"') || !wroteAt) return;
            lags.push(performance.now() - wroteAt);
            wroteAt = 0;
            if (lags.length >= 10) {
              req.destroy();
              resolve();
            } else setTimeout(write, Math.random() * 200);
          });
          setTimeout(write, 100);
        },
      );
    });
    other.db.close();
    console.log(
      `SSE push after an external commit:    p50 ${fmt(percentile(lags, 50), 0)} ms, max ${fmt(Math.max(...lags), 0)} ms (data_version polled every 500 ms)`,
    );
    await server.close();
    await runtime.close();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(stateDir, { recursive: true, force: true });
  },
};
