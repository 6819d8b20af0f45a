// Issue 14 over real HTTP in browser mode: irreversible prune needs its preview and confirmation,
// curated samples survive it, nothing is overwritten, backups and paths stay where they belong,
// NUL and oversized bodies get clear errors, the token is exchanged for a cookie, and the rate
// limiter keys by token. Each test fails on the code before the fix.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobStatus, PruneOutcome } from '../../src/shared/contract';
import { generateDemoWorkspace } from '../../src/core/demo';
import { RateLimiter } from '../../src/web/security';
import { serveWorkspace, type WorkbenchServer } from '../helpers/browser';
import { tempWorkspace } from '../helpers/workspace';
import { call, request, type RawResponse } from './http';

type Body<T = unknown> = { ok: true; value: T } | { ok: false; error: { kind: string; message: string } };

describe('browser mode safety (issue 14)', () => {
  let dir: string;
  let web: WorkbenchServer;
  let port: number;
  const api = async <T>(channel: string, input: unknown = {}): Promise<Body<T>> =>
    (await call(port, web.token, channel, input)).json<Body<T>>();
  const value = async <T>(channel: string, input: unknown = {}): Promise<T> => {
    const r = await api<T>(channel, input);
    if (!r.ok) throw new Error(`${channel}: ${r.error.kind} ${r.error.message}`);
    return r.value;
  };
  const job = async (channel: string, input: unknown): Promise<JobStatus> => {
    const { jobId } = await value<{ jobId: string }>(channel, input);
    // Jobs may run in a worker thread; on a loaded machine that takes a while to start.
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const j = await value<JobStatus>('jobs.get', { jobId });
      if (j.state !== 'running') return j;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`${channel} did not finish in 60 s`);
  };
  const count = (sql: string) => web.runtime.session.db.prepare(sql).pluck().get() as number;

  beforeAll(async () => {
    dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 8, seed: 14 });
    web = await serveWorkspace(dir);
    port = web.server.port;
  });
  afterAll(async () => {
    await web?.close();
  });

  it('1: prune takes whole days above a minimum, needs its dry run token and confirm, and a backup unless forced', async () => {
    const turns = count('SELECT count(*) FROM conversation_turns');
    for (const days of [0.001, 1, 6.5]) {
      expect(await api('retention.prune', { days, dryRun: true }), String(days)).toMatchObject({ ok: false, error: { kind: 'Invalid' } });
    }
    expect(await api('settings.set', { patch: { storage: { retentionDays: 1 } } })).toMatchObject({
      ok: false,
      error: { kind: 'Invalid' },
    });
    expect(await api('retention.prune', { days: 30 })).toMatchObject({
      ok: false,
      error: { kind: 'Invalid', message: expect.stringMatching(/irreversible/) },
    });
    expect(await api('retention.prune', { days: 30, confirm: true })).toMatchObject({
      ok: false,
      error: { kind: 'Invalid', message: expect.stringMatching(/previewToken/) },
    });
    expect(count('SELECT count(*) FROM conversation_turns')).toBe(turns);

    const preview = await value<PruneOutcome>('retention.prune', { days: 30, dryRun: true });
    expect(preview.deleted.conversation_turns).toBeGreaterThan(0);
    expect(preview.needsForce).toBe(true);
    expect(await api('retention.prune', { days: 30, confirm: true, previewToken: 'x'.repeat(40) })).toMatchObject({
      ok: false,
      error: { kind: 'Invalid' },
    });
    // No backup holds the data yet: refused without force.
    expect(await api('retention.prune', { days: 30, confirm: true, previewToken: preview.previewToken })).toMatchObject({
      ok: false,
      error: { kind: 'Conflict', message: expect.stringMatching(/backup/) },
    });
    expect(count('SELECT count(*) FROM conversation_turns')).toBe(turns);

    await value('backup.create', {});
    const after = await value<PruneOutcome>('retention.prune', { days: 30, dryRun: true });
    expect(after.needsForce).toBe(false);
    const done = await value<PruneOutcome>('retention.prune', { days: 30, confirm: true, previewToken: after.previewToken });
    expect(done.dryRun).toBe(false);
    expect(done.deleted).toEqual(after.deleted);
    expect(count('SELECT count(*) FROM conversation_turns')).toBe(turns - (after.deleted.conversation_turns ?? 0));
  });

  it("2: prune keeps every curator's judgement; only pending, untouched samples go", async () => {
    const w = tempWorkspace();
    generateDemoWorkspace(w, { sessions: 6, seed: 2 });
    const served = await serveWorkspace(w);
    try {
      const db = served.runtime.session.db;
      const old = db.prepare('SELECT id, turn_id, session_id FROM memory_gate_decisions ORDER BY created_at LIMIT 6').all() as {
        id: string;
        turn_id: string;
        session_id: string;
      }[];
      db.prepare('DELETE FROM dataset_samples').run();
      const ins =
        db.prepare(`INSERT INTO dataset_samples (id, sample_type, turn_id, decision_id, session_id, content, annotation_status, annotation_notes, source_key, created_at)
        VALUES (?, 'memory_gate_negative', ?, ?, ?, '{}', ?, ?, ?, 1)`);
      const kinds: [string, string, string | null][] = [
        ['rejected', 'rejected', null],
        ['needs_review', 'needs_review', null],
        ['approved', 'approved', null],
        ['noted', 'pending', 'check the date'],
        ['edited', 'pending', null],
        ['untouched', 'pending', null],
      ];
      kinds.forEach(([id, status, notes], i) => {
        const d = old[i]!; // six decisions for six kinds
        ins.run(id, d.turn_id, d.id, d.session_id, status, notes, `k-${id}`);
      });
      db.prepare(
        `INSERT INTO dataset_annotation_events (sample_id, action, actor, prev_status, created_at) VALUES ('edited', 'edit', 'curator', 'pending', 1)`,
      ).run();
      expect((await call(served.server.port, served.token, 'backup.create', {})).status).toBe(200);
      const preview = (await call(served.server.port, served.token, 'retention.prune', { days: 30, dryRun: true })).json<
        Body<PruneOutcome>
      >();
      if (!preview.ok) throw new Error(preview.error.message);
      const r = (
        await call(served.server.port, served.token, 'retention.prune', {
          days: 30,
          confirm: true,
          previewToken: preview.value.previewToken,
        })
      ).json<Body<PruneOutcome>>();
      expect(r, JSON.stringify(r)).toMatchObject({ ok: true });
      const left = db.prepare('SELECT id FROM dataset_samples ORDER BY id').pluck().all();
      expect(left).toEqual(['approved', 'edited', 'needs_review', 'noted', 'rejected']);
      // what they reference stays too
      for (const d of old.slice(0, 5))
        expect(db.prepare('SELECT count(*) FROM memory_gate_decisions WHERE id = ?').pluck().get(d.id)).toBe(1);
      expect(db.prepare('SELECT count(*) FROM memory_gate_decisions WHERE id = ?').pluck().get(old[5]!.id)).toBe(0);
    } finally {
      await served.close();
    }
  });

  it('3: exports refuse an existing file unless overwrite is given', { timeout: 120_000 }, async () => {
    const first = await job('conversations.export', { since: 0, until: Date.now() });
    expect(first.state, JSON.stringify(first.error)).toBe('done');
    const file = (first.result as { file: string }).file;
    fs.writeFileSync(file, 'curator notes\n');
    const again = await job('conversations.export', { since: 0, until: Date.now() });
    expect(again.state).toBe('failed');
    expect(again.error).toMatchObject({ kind: 'Conflict', message: expect.stringMatching(/already exists.*overwrite/) });
    const forced = await job('conversations.export', { since: 0, until: Date.now(), overwrite: true });
    expect(forced.state, JSON.stringify(forced.error)).toBe('done');

    const exportDir = path.join(dir, '.openclaw-reflection', 'exports', 'my-set');
    fs.mkdirSync(exportDir, { recursive: true });
    fs.writeFileSync(path.join(exportDir, 'README.md'), '# my own notes\n');
    const ds = await job('dataset.export', { format: 'openai', onlyApproved: false, name: 'my-set' });
    expect(ds.state).toBe('failed');
    expect(ds.error).toMatchObject({ kind: 'Conflict', message: expect.stringMatching(/README\.md/) });
    expect(fs.readFileSync(path.join(exportDir, 'README.md'), 'utf8')).toBe('# my own notes\n');
  });

  it('6: backups land only in the backups folder or a dialog-picked path, never on plugin names or through symlinks', async () => {
    const tools = fs.readFileSync(path.join(dir, 'TOOLS.md'));
    for (const file of ['USER.md.lock', 'TOOLS.md', 'notes.md', '../outside.db', 'sub/x.db', '/tmp/anywhere.db', path.join(dir, 'x.db')]) {
      expect(await api('backup.create', { file }), file).toMatchObject({ ok: false, error: { kind: 'Invalid' } });
    }
    expect(fs.existsSync(path.join(dir, 'USER.md.lock'))).toBe(false);
    expect(fs.existsSync(path.join(dir, '.openclaw-reflection', 'backups', 'USER.md.lock'))).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'TOOLS.md'))).toEqual(tools);
    const ok = await value<{ file: string }>('backup.create', { file: 'before-upgrade.db' });
    expect(fs.realpathSync(path.dirname(ok.file))).toBe(fs.realpathSync(path.join(dir, '.openclaw-reflection', 'backups')));
    expect(await api('backup.create', { file: 'before-upgrade.db' })).toMatchObject({ ok: false, error: { kind: 'Conflict' } });
    // a backups folder that is a symlink out of the workspace is not followed
    const w = tempWorkspace();
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-outside-'));
    fs.mkdirSync(path.join(w, '.openclaw-reflection'), { recursive: true });
    fs.symlinkSync(outside, path.join(w, '.openclaw-reflection', 'backups'));
    const served = await serveWorkspace(w);
    try {
      const r = (await call(served.server.port, served.token, 'backup.create', { file: 'x.db' })).json<Body>();
      expect(r).toMatchObject({ ok: false, error: { kind: 'Invalid', message: expect.stringMatching(/symlink/) } });
      expect(fs.readdirSync(outside)).toEqual([]);
    } finally {
      await served.close();
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('7: the page can name paths only inside allowed folders; storage.dbPath stays inside and is used', { timeout: 120_000 }, async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-elsewhere-'));
    try {
      expect(await api('workspace.open', { dir: elsewhere })).toMatchObject({ ok: false, error: { kind: 'Invalid' } });
      expect(fs.existsSync(path.join(elsewhere, '.openclaw-reflection'))).toBe(false);
      for (const p of ['/etc', '/proc/self', elsewhere]) {
        const j = await job('import.reflectionLogs', { path: p });
        expect(j.state, p).toBe('failed');
        expect(j.error, p).toMatchObject({ kind: 'Invalid', message: expect.stringMatching(/outside the folders/) });
      }
      // a symlink inside the workspace does not lead out
      fs.symlinkSync('/etc', path.join(dir, 'etc-link'));
      expect((await job('import.openclaw', { path: path.join(dir, 'etc-link') })).error).toMatchObject({ kind: 'Invalid' });
      expect(await api('settings.set', { patch: { pluginRoot: '/etc' } })).toMatchObject({ ok: false, error: { kind: 'Invalid' } });
      for (const dbPath of ['/tmp/x.db', '../x.db', 'a/../../x.db', 'TOOLS.md']) {
        expect(await api('settings.set', { patch: { storage: { dbPath } } }), dbPath).toMatchObject({
          ok: false,
          error: { kind: 'Invalid' },
        });
      }
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
    // With --allow-dir, a folder there may be opened; a relative dbPath is then really used.
    const other = tempWorkspace();
    const allowed = await serveWorkspace(dir, { allowDirs: [other] });
    try {
      const set = (await call(allowed.server.port, allowed.token, 'workspace.open', { dir: other })).json<Body>();
      expect(set.ok).toBe(true);
      expect(
        (await call(allowed.server.port, allowed.token, 'settings.set', { patch: { storage: { dbPath: 'data/curated.db' } } })).json<Body>()
          .ok,
      ).toBe(true);
      const reopened = (await call(allowed.server.port, allowed.token, 'workspace.open', { dir: other })).json<Body<{ dbFile: string }>>();
      expect(reopened).toMatchObject({ ok: true, value: { dbFile: path.join(fs.realpathSync(other), 'data', 'curated.db') } });
      expect(fs.existsSync(path.join(other, 'data', 'curated.db'))).toBe(true);
    } finally {
      await allowed.close();
    }
  });

  it('9: a NUL in any string input is Invalid (400); a body over 8 MB gets 413 with a message', async () => {
    const cases: [string, unknown][] = [
      ['search.query', { text: 'a\u0000b' }],
      ['gate.list', { text: 'x\u0000' }],
      ['backup.create', { file: 'a\u0000.db' }],
      ['settings.set', { patch: { 'plugin\u0000Root': 'x' } }],
    ];
    for (const [channel, input] of cases) {
      const r = await call(port, web.token, channel, input);
      expect(r.status, channel).toBe(400);
      expect(r.json(), channel).toMatchObject({ ok: false, error: { kind: 'Invalid', message: expect.stringMatching(/NUL/) } });
    }
    const big = JSON.stringify({ text: 'x'.repeat(9 * 1024 * 1024) });
    const r = await call(port, web.token, 'search.query', JSON.parse(big));
    expect(r.status).toBe(413);
    expect(r.json()).toMatchObject({ ok: false, error: { message: expect.stringMatching(/8 MB/) } });
    // chunked, without Content-Length: still a 413, not a reset
    const chunked = await new Promise<RawResponse>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/api/search.query',
          method: 'POST',
          agent: false,
          headers: { 'content-type': 'application/json', 'x-reflection-token': web.token, 'transfer-encoding': 'chunked' },
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) }));
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 9; i++) req.write('x'.repeat(1024 * 1024));
      req.end();
    });
    expect(chunked.status).toBe(413);
  });

  it('10: the URL token is exchanged once for an HttpOnly SameSite=Strict cookie, never accepted on API calls; downloads use one-use tickets', async () => {
    const exchange = await request(port, `/?token=${web.token}`);
    expect(exchange.status).toBe(303);
    expect(exchange.headers.location).toBe('/');
    const setCookie = String(exchange.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).not.toContain(web.token);
    const cookie = setCookie.split(';')[0] ?? '';
    const withCookie = await request(port, '/api/app.info', { method: 'POST', body: '{}', headers: { cookie } });
    expect(withCookie.status).toBe(200);
    expect((await request(port, `/?token=${web.token}x`)).status).toBe(401);
    // The redirect never leaves the origin (a path that parses to '//host').
    for (const p of ['//evil.example/', '/\\evil.example/', '/%5C%5Cevil.example/']) {
      const r = await request(port, `${p}?token=${web.token}`);
      expect(r.status, p).toBe(303);
      expect(String(r.headers.location), p).not.toMatch(/^\/\/|^\/\\|^https?:/);
    }
    for (const p of [`/api/app.info?token=${web.token}`, `/api/backup.create?token=${web.token}`]) {
      expect((await request(port, p, { method: 'POST', body: '{}' })).status, p).toBe(401);
    }
    expect((await request(port, `/api/events?token=${web.token}`)).status).toBe(401);

    const exportDir = path.join(dir, '.openclaw-reflection', 'exports', 'tickets');
    fs.mkdirSync(exportDir, { recursive: true });
    fs.writeFileSync(path.join(exportDir, 'train.jsonl'), '{"t":1}\n');
    web.runtime.session.db
      .prepare(
        `INSERT INTO dataset_exports (id, export_name, export_format, sample_types, file_path, files, exported_at)
      VALUES ('exp-t', 'tickets', 'openai', '[]', ?, ?, 1)`,
      )
      .run(exportDir, JSON.stringify([{ name: 'train.jsonl' }]));
    // The page's link (cookie) is answered with a redirect to a fresh ticket; the ticket works once.
    const link = await request(port, '/api/download?exportId=exp-t&file=train.jsonl', { headers: { cookie } });
    expect(link.status).toBe(303);
    const ticketUrl = String(link.headers.location);
    expect(ticketUrl).toMatch(/^\/api\/download\?ticket=[\w-]{32}$/);
    expect(ticketUrl).not.toContain(web.token);
    const first = await request(port, ticketUrl);
    expect(first.status).toBe(200);
    expect(first.body).toBe('{"t":1}\n');
    expect((await request(port, ticketUrl)).status).toBe(401);
    expect((await request(port, `/api/download?exportId=exp-t&file=train.jsonl&token=${web.token}`)).status).toBe(401);

    // Tokens rotate: a second server (a restart) has its own token; the old one and its cookie are refused.
    const restarted = await serveWorkspace(tempWorkspace());
    try {
      expect(restarted.token).not.toBe(web.token);
      expect((await call(restarted.server.port, web.token, 'app.info')).status).toBe(401);
      expect((await request(restarted.server.port, '/api/app.info', { method: 'POST', body: '{}', headers: { cookie } })).status).toBe(401);
    } finally {
      await restarted.close();
    }
  });
});

describe('rate limiter (issue 14 item 11)', () => {
  it('keys unauthenticated requests from any source address into one bucket, and tokens into their own', async () => {
    const w = tempWorkspace();
    const served = await serveWorkspace(w, { rateLimit: { capacity: 5, refillPerSecond: 0.01 } });
    const from = (localAddress: string, token?: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: served.server.port,
            path: '/api/app.info',
            method: 'POST',
            localAddress,
            agent: false,
            headers: {
              host: `127.0.0.1:${served.server.port}`,
              'content-type': 'application/json',
              ...(token ? { 'x-reflection-token': token } : {}),
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{}');
      });
    try {
      for (let i = 0; i < 5; i++) expect(await from('127.0.0.1', `guess-${i}`)).toBe(401);
      // a fresh loopback alias earns no fresh bucket
      expect(await from('127.0.0.2')).toBe(429);
      expect(await from('127.0.0.3', 'guess-x')).toBe(429);
      // the real token has its own bucket
      expect(await from('127.0.0.4', served.token)).toBe(200);
    } finally {
      await served.close();
    }
  });

  it('evicts the least recently used bucket instead of clearing them all', () => {
    let t = 0;
    const limiter = new RateLimiter({ capacity: 2, refillPerSecond: 0.001, maxKeys: 3 }, () => t++);
    limiter.take('a');
    limiter.take('a');
    expect(limiter.take('a')).toBeGreaterThan(0); // a is empty
    limiter.take('b');
    limiter.take('c');
    limiter.take('a'); // a is now the most recent
    limiter.take('d'); // evicts b, the least recently used
    expect(limiter.size).toBe(3);
    expect(limiter.has('b')).toBe(false);
    expect(limiter.has('a')).toBe(true);
    // a kept its (empty) bucket: it was not reset by the eviction
    expect(limiter.take('a')).toBeGreaterThan(0);
  });
});
