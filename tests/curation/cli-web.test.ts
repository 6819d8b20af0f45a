// Curators from the command line and over browser mode's HTTP API: `curator add` prints a token,
// that token opens the API, and every action made with it is recorded under the curator's name
// (reviews, PII value decisions, exports), which `dataset list --json` shows.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { listPiiValues } from '../../src/core/curation/piiValues';
import { collectSamples } from '../../src/core/dataset';
import { generateDemoWorkspace } from '../../src/core/demo';
import { serveWorkspace, type WorkbenchServer } from '../helpers/browser';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

const cli = path.join(repoRoot, 'bin', 'reflection.cjs');
let dir: string;
let db: DB;
let served: WorkbenchServer | undefined;

beforeAll(async () => {
  process.env.REFLECTION_STATE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-state-'));
  dir = tempWorkspace('reflection-curator-cli-');
  generateDemoWorkspace(dir, { sessions: 8, seed: 3 });
  db = openWorkspaceDatabase(dir).db;
  await collectSamples({ db, workspaceDir: dir }, {});
}, 120_000);
afterAll(async () => {
  await served?.close();
  db?.close();
});

const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args, '--workspace', dir], { encoding: 'utf8' });

async function call(
  token: string,
  channel: string,
  input: unknown,
): Promise<{ status: number; body: { ok: boolean; value?: any; error?: { message: string } } }> {
  const send = () =>
    fetch(`${served!.origin}/api/${channel}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Reflection-Token': token },
      body: JSON.stringify(input),
    });
  // A kept-alive socket the server closed while a slow CLI run was going on resets once: send again.
  const res = await send().catch(send);
  return { status: res.status, body: (await res.json()) as { ok: boolean; value?: any; error?: { message: string } } };
}

describe('reflection curator', () => {
  let annToken = '';

  it('adds a curator and prints the token once, lists and revokes', () => {
    const add = run('curator', 'add', 'ann');
    expect(add.status).toBe(0);
    annToken = /\s(rc_[\w-]+)\s/.exec(add.stdout)?.[1] ?? '';
    expect(annToken).toMatch(/^rc_/);
    const json = JSON.parse(
      execFileSync(process.execPath, [cli, 'curator', 'add', 'bob', '--lead', '--json', '--workspace', dir], { encoding: 'utf8' }),
    );
    expect(json).toMatchObject({ name: 'bob', role: 'lead' });
    const list = JSON.parse(run('curator', 'list', '--json').stdout) as { name: string; hasToken: boolean }[];
    expect(list.map((c) => c.name)).toEqual(['ann', 'bob']);
    expect(JSON.stringify(list)).not.toContain(annToken);
    expect(run('curator', 'add', 'ann').stderr).toMatch(/already exists/);
    expect(run('curator', 'revoke', 'bob').status).toBe(0);
    expect(run('curator', 'revoke', 'nobody').stderr).toMatch(/no curator named nobody/);
    expect(run('curator', 'add', '').status).not.toBe(0);
  }, 90_000);

  it("accepts the curator's token in browser mode and records every action under their name", async () => {
    served = await serveWorkspace(dir);
    expect((await call('rc_wrong', 'curators.me', {})).status).toBe(401);
    const me = await call(annToken, 'curators.me', {});
    expect(me.body.value).toMatchObject({ name: 'ann', role: 'curator', isLocal: false });
    const owner = await call(served.token, 'curators.me', {});
    expect(owner.body.value.role).toBe('lead');

    const queue = await call(annToken, 'review.queue', { limit: 2 });
    const [first] = queue.body.value.items as { id: string }[];
    if (!first) throw new Error('the queue is empty');
    expect((await call(annToken, 'dataset.review', { id: first.id, action: 'approve' })).body.ok).toBe(true);
    const value = listPiiValues({ db, workspaceDir: dir })[0];
    if (!value) throw new Error('the workspace lists no PII value');
    const decided = await call(annToken, 'pii.decideValue', { value: value.value, decision: 'keep', scope: 'workspace' });
    expect(decided.body.value.actor).toBe('ann');
    const job = await call(annToken, 'dataset.export', { format: 'raw', name: 'by-ann', onlyApproved: false });
    const jobId = job.body.value.jobId as string;
    for (let i = 0; i < 600; i++) {
      const st = await call(annToken, 'jobs.get', { jobId });
      if (st.body.value.state !== 'running') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(db.prepare("SELECT exported_by AS by FROM dataset_exports WHERE export_name = 'by-ann'").get()).toEqual({ by: 'ann' });

    const listed = JSON.parse(run('dataset', 'list', '--json', '--limit', '1000').stdout) as {
      items: { id: string; annotatedBy: string | null }[];
    };
    expect(listed.items.find((s) => s.id === first.id)?.annotatedBy).toBe('ann');

    // revoked: refused at the next request
    run('curator', 'revoke', 'ann');
    expect((await call(annToken, 'curators.me', {})).status).toBe(401);
  }, 90_000);
});
