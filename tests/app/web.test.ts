import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabaseFile, dbPathFor } from '../../src/core/db/connection';
import { generateDemoWorkspace } from '../../src/core/demo';
import { serveWorkspace, type WorkbenchServer } from '../helpers/browser';
import { tempWorkspace } from '../helpers/workspace';
import { call, request } from './http';

describe('browser mode over real HTTP', () => {
  let dir: string;
  let web: WorkbenchServer;
  let port: number;

  beforeAll(async () => {
    dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 4 });
    web = await serveWorkspace(dir);
    port = web.server.port;
  });
  afterAll(async () => {
    await web?.close();
  });

  it('prints a loopback URL holding a random token', () => {
    expect(web.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/\\?token=[A-Za-z0-9_-]{32}$`));
  });

  it('refuses a missing or wrong token and accepts the right one', async () => {
    const none = await request(port, '/api/app.info', { method: 'POST', body: '{}' });
    expect(none.status).toBe(401);
    expect(none.json()).toMatchObject({ ok: false, error: { kind: 'Unauthorized' } });
    // one character off (the random token may itself end in "x")
    const wrong = await call(port, `${web.token.slice(0, -1)}${web.token.endsWith('x') ? 'y' : 'x'}`, 'app.info');
    expect(wrong.status).toBe(401);
    const inQuery = await request(port, `/api/app.info?token=nope`, { method: 'POST', body: '{}' });
    expect(inQuery.status).toBe(401);
    const ok = await call(port, web.token, 'app.info');
    expect(ok.status).toBe(200);
    expect(ok.json()).toMatchObject({ ok: true, value: { mode: 'web' } });
    const events = await request(port, '/api/events');
    expect(events.status).toBe(401);
  });

  it('refuses another Host header (DNS rebinding), even with the token', async () => {
    for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1:${port + 1}`, `localhost.evil.example:${port}`]) {
      const r = await call(port, web.token, 'workspace.current', {}, { host });
      expect(r.status, host).toBe(401);
      expect(r.json()).toMatchObject({ ok: false, error: { kind: 'Unauthorized', message: 'Host not allowed' } });
    }
    const page = await request(port, '/', { headers: { host: 'attacker.test' } });
    expect(page.status).toBe(401);
    const local = await call(port, web.token, 'workspace.current', {}, { host: `localhost:${port}` });
    expect(local.status).toBe(200);
  });

  it('refuses another Origin and cross-site fetches; no CORS headers', async () => {
    const evil = await call(port, web.token, 'workspace.current', {}, { origin: 'http://evil.example' });
    expect(evil.status).toBe(401);
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    const otherPort = await call(port, web.token, 'workspace.current', {}, { origin: `http://127.0.0.1:${port + 1}` });
    expect(otherPort.status).toBe(401);
    const crossSite = await call(port, web.token, 'workspace.current', {}, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(401);
    const same = await call(port, web.token, 'workspace.current', {}, { origin: web.origin, 'sec-fetch-site': 'same-origin' });
    expect(same.status).toBe(200);
    const preflight = await request(port, '/api/workspace.current', { method: 'OPTIONS', headers: { origin: 'http://evil.example' } });
    expect(preflight.status).toBe(401);
  });

  it('sends a strict CSP, nosniff and no-referrer on pages and API replies', async () => {
    for (const r of [await request(port, '/'), await call(port, web.token, 'app.info'), await request(port, '/api/app.info')]) {
      const csp = String(r.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-(inline|eval)/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['referrer-policy']).toBe('no-referrer');
    }
    const index = await request(port, '/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toMatch(/text\/html/);
  });

  it('serves only files of the built renderer', async () => {
    for (const p of ['/../../package.json', '/%2e%2e/%2e%2e/package.json', '/..%2f..%2fpackage.json', '/nope.js']) {
      const r = await request(port, p);
      expect(r.status, p).toBe(404);
      expect(r.body).not.toContain('reflection-workbench');
    }
  });

  it('answers a malformed body with kind Invalid', async () => {
    const notJson = await request(port, '/api/gate.list', { method: 'POST', body: '{nope', headers: { 'x-reflection-token': web.token } });
    expect(notJson.status).toBe(400);
    expect(notJson.json()).toMatchObject({ ok: false, error: { kind: 'Invalid' } });
    const badType = await call(port, web.token, 'gate.list', { limit: 'all' });
    expect(badType.json()).toMatchObject({ ok: false, error: { kind: 'Invalid', message: expect.stringMatching(/limit/) } });
    const form = await request(port, '/api/app.info', {
      method: 'POST',
      body: 'a=1',
      headers: { 'x-reflection-token': web.token, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(400);
  });

  it('does not repeat a mutating call sent twice with one Idempotency-Key', async () => {
    const backups = path.join(dir, '.openclaw-reflection', 'backups');
    const key = 'backup-key-1';
    const first = await call(port, web.token, 'backup.create', {}, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    const second = await call(port, web.token, 'backup.create', {}, { 'idempotency-key': key });
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    expect(fs.readdirSync(backups).filter((f) => f.endsWith('.db'))).toHaveLength(1);
    const reused = await call(port, web.token, 'backup.create', { file: 'other.db' }, { 'idempotency-key': key });
    expect(reused.json()).toMatchObject({ ok: false, error: { kind: 'Conflict' } });
  });

  it('pushes a data event over SSE when another connection writes the database', async () => {
    const received: string[] = [];
    const req = http.get({ host: '127.0.0.1', port, path: '/api/events', headers: { 'x-reflection-token': web.token }, agent: false });
    const response = await new Promise<http.IncomingMessage>((resolve) => req.on('response', resolve));
    expect(response.headers['content-type']).toMatch(/text\/event-stream/);
    response.on('data', (c: Buffer) => received.push(c.toString('utf8')));
    await new Promise((r) => setTimeout(r, 100));
    const other = openDatabaseFile(dbPathFor(dir));
    other.db.prepare("INSERT INTO exclusions (id, kind, value, created_at) VALUES ('x1', 'account', 'acct-1', 1)").run();
    other.db.close();
    const deadline = Date.now() + 3000;
    while (!received.join('').includes('"type":"data"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    req.destroy();
    expect(received.join('')).toContain('"type":"data"');
  });

  it('downloads only files an export wrote', async () => {
    const exportDir = path.join(dir, '.openclaw-reflection', 'exports', 'ds1');
    fs.mkdirSync(exportDir, { recursive: true });
    fs.writeFileSync(path.join(exportDir, 'train.jsonl'), '{"a":1}\n');
    fs.writeFileSync(path.join(exportDir, 'secret.txt'), 'not exported');
    const db = web.runtime.session.db;
    db.prepare(
      `INSERT INTO dataset_exports (id, export_name, export_format, sample_types, file_path, files, exported_at)
       VALUES ('exp1', 'ds1', 'openai', '[]', ?, ?, 1)`,
    ).run(exportDir, JSON.stringify([{ name: 'train.jsonl', bytes: 8 }]));
    const ticketFor = (file: string) => call(port, web.token, 'download-ticket', { exportId: 'exp1', file });
    const t = await ticketFor('train.jsonl');
    expect(t.status).toBe(200);
    const ok = await request(port, t.json<{ value: { url: string } }>().value.url);
    expect(ok.status).toBe(200);
    expect(ok.body).toBe('{"a":1}\n');
    expect(ok.headers['content-disposition']).toContain('train.jsonl');
    for (const file of ['secret.txt', '../reflection.db', '..%2F..%2FUSER.md']) {
      const r = await ticketFor(file);
      expect(r.status, file).toBeGreaterThanOrEqual(400);
      expect(r.body).not.toContain('not exported');
    }
    const noToken = await request(port, `/api/download?exportId=exp1&file=train.jsonl`);
    expect(noToken.status).toBe(401);
  });

  it("names a downloaded file with the export's download name", async () => {
    const exportDir = path.join(dir, '.openclaw-reflection', 'exports', 'ds2');
    fs.mkdirSync(exportDir, { recursive: true });
    fs.writeFileSync(path.join(exportDir, 'alpaca.train.jsonl'), '{"a":2}\n');
    web.runtime.session.db
      .prepare(
        `INSERT INTO dataset_exports (id, export_name, export_format, sample_types, file_path, files, exported_at)
         VALUES ('exp2', 'ds2', 'alpaca', '[]', ?, ?, 1)`,
      )
      .run(exportDir, JSON.stringify([{ name: 'alpaca.train.jsonl', bytes: 8, downloadName: 'agent-one-alpaca-2026-11-25.train.jsonl' }]));
    const t = await call(port, web.token, 'download-ticket', { exportId: 'exp2', file: 'alpaca.train.jsonl' });
    const got = await request(port, t.json<{ value: { url: string } }>().value.url);
    expect(got.status).toBe(200);
    expect(got.headers['content-disposition']).toBe("attachment; filename*=UTF-8''agent-one-alpaca-2026-11-25.train.jsonl");
  });

  it('a job cancelled over HTTP ends with kind Cancelled', async () => {
    const started = await call(port, web.token, 'dataset.collect', { dryRun: true });
    const { jobId } = started.json<{ value: { jobId: string } }>().value;
    const asked = await call(port, web.token, 'jobs.cancel', { jobId });
    expect(asked.json()).toMatchObject({ ok: true, value: { state: 'running', cancelling: true, error: null } });
    const state = async () => (await call(port, web.token, 'jobs.get', { jobId })).json<{ value: { state: string } }>().value.state;
    await expect.poll(state, { timeout: 30_000 }).toBe('cancelled');
    const got = await call(port, web.token, 'jobs.get', { jobId });
    expect(got.json()).toMatchObject({
      ok: true,
      value: { state: 'cancelled', cancelling: false, error: { kind: 'Cancelled', message: 'dataset.collect cancelled' } },
    });
  });

  it('is not reachable on any non-loopback address', async () => {
    const addresses = Object.entries(os.networkInterfaces()).flatMap(([name, list]) =>
      (list ?? []).filter((a) => !a.internal).map((a) => (a.address.startsWith('fe80:') ? `${a.address}%${name}` : a.address)),
    );
    const reachable = (host: string, p: number) =>
      new Promise<boolean>((resolve) => {
        const socket = net.connect({ host, port: p, timeout: 1000 });
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
        socket.once('timeout', () => {
          socket.destroy();
          resolve(false);
        });
      });
    // Control: a server on every interface is reachable through the same probe, so a false below means something.
    const control = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => control.listen(0, '::', () => r()));
    const controlPort = (control.address() as net.AddressInfo).port;
    for (const address of addresses) {
      expect(await reachable(address, controlPort), `control ${address}`).toBe(true);
      expect(await reachable(address, port), address).toBe(false);
    }
    control.close();
    expect(await reachable('127.0.0.1', port)).toBe(true);
  });
});

describe('browser mode rate limit', () => {
  let web: WorkbenchServer;
  beforeAll(async () => {
    const dir = tempWorkspace();
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), '# Memory\n');
    web = await serveWorkspace(dir, { rateLimit: { capacity: 20, refillPerSecond: 2 } });
  });
  afterAll(async () => {
    await web?.close();
  });

  it('answers a burst beyond the bucket with 429 and Retry-After', async () => {
    const replies = await Promise.all(Array.from({ length: 60 }, () => call(web.server.port, web.token, 'app.info')));
    const limited = replies.filter((r) => r.status === 429);
    const ok = replies.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(20);
    // 20 in the bucket, plus at most a few refilled (2/s) while a loaded machine sends the burst.
    expect(ok.length).toBeLessThanOrEqual(26);
    expect(limited.length).toBeGreaterThanOrEqual(34);
    expect(limited[0]!.json()).toMatchObject({ ok: false, error: { kind: 'RateLimited' } });
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Guessing tokens is limited too.
    const guesses = await Promise.all(Array.from({ length: 40 }, (_, i) => call(web.server.port, `guess-${i}`, 'app.info')));
    expect(guesses.some((r) => r.status === 429)).toBe(true);
  });
});
