import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CHANNELS, contracts, MUTATING_CHANNELS, type Channel } from '../../src/shared/contract';
import { createAppRuntime, type AppRuntime } from '../../src/api/runtime';
import { buildHandlers } from '../../src/api/handlers';
import { createRegistry, type Handlers } from '../../src/api/registry';
import { JobManager } from '../../src/api/jobs/manager';
import { WorkspaceSession } from '../../src/api/session';
import { generateDemoWorkspace } from '../../src/core/demo';
import { dbPathFor, openDatabaseFile } from '../../src/core/db/connection';
import { tempWorkspace } from '../helpers/workspace';

/** Payloads that no contract accepts: not an object, an unknown key, and a wrong type for every field. */
function malformedPayloads(channel: Channel): unknown[] {
  const schema = contracts[channel].input as unknown as z.ZodObject;
  const out: unknown[] = [42, 'text', [1, 2], { __unexpected: true }];
  for (const key of Object.keys(schema.shape ?? {})) {
    const wrong = [[{ nested: 1 }]];
    if (!(schema.shape[key] as z.ZodType).safeParse(wrong).success) out.push({ [key]: wrong });
  }
  return out;
}

describe('handler registry', () => {
  let dir: string;
  let stateDir: string;
  let runtime: AppRuntime;
  const calls: string[] = [];

  beforeAll(() => {
    dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 3 });
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-state-'));
    // Each real handler is wrapped so the test sees whether any service was reached.
    const real = buildHandlers();
    const observed = Object.fromEntries(
      CHANNELS.map((c) => [
        c,
        (...args: unknown[]) => {
          calls.push(c);
          return (real[c] as (...a: unknown[]) => unknown)(...args);
        },
      ]),
    ) as unknown as Handlers;
    runtime = createAppRuntime({ mode: 'web', stateDir, handlers: observed, log: { warn: () => undefined } });
    runtime.session.open(dir);
  });
  afterAll(async () => {
    await runtime.close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  it('has a handler for every contract and refuses to start without one', () => {
    const handlers = buildHandlers();
    for (const c of CHANNELS) expect(typeof handlers[c], c).toBe('function');
    const { 'gate.list': _omitted, ...withoutOne } = handlers;
    // @ts-expect-error a map without the gate.list handler is not a Handlers: the compiler refuses it
    const incomplete: Handlers = withoutOne;
    const session = new WorkspaceSession({ stateDir });
    expect(() => createRegistry(incomplete, { mode: 'web', version: 't', session, jobs: new JobManager(() => undefined) })).toThrow(
      /gate\.list/,
    );
  });

  it('marks mutating channels and declares a zod schema for each', () => {
    expect(MUTATING_CHANNELS).toEqual(
      expect.arrayContaining([
        'guardian.rollback',
        'guardian.retry',
        'guardian.correct',
        'dataset.review',
        'dataset.undo',
        'workspace.open',
        'settings.set',
        'backup.create',
        'exclusions.add',
        'exclusions.remove',
        'exclusions.purge',
        'retention.prune',
      ]),
    );
    expect(contracts['conversations.export'].kind).toBe('job');
    for (const q of [
      'sessions.list',
      'gate.list',
      'guardian.diff',
      'dataset.previewExport',
      'search.query',
      'exclusions.list',
      'settings.validate',
    ] as const)
      expect(contracts[q].mutating).toBe(false);
    for (const c of CHANNELS) expect(contracts[c].input).toBeInstanceOf(z.ZodType);
  });

  it('answers kind Invalid to a malformed payload on every channel, before any service runs', async () => {
    let checked = 0;
    for (const channel of CHANNELS) {
      for (const payload of malformedPayloads(channel)) {
        const r = await runtime.registry.dispatch(channel, payload);
        expect(r.ok, `${channel} ${JSON.stringify(payload)}`).toBe(false);
        if (!r.ok) expect(r.error.kind, `${channel} ${JSON.stringify(payload)}`).toBe('Invalid');
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(CHANNELS.length * 4);
    expect(calls).toEqual([]);
  });

  it('names the bad field in the message', async () => {
    const r = await runtime.registry.dispatch('gate.list', { decision: 'MAYBE', limit: 5 });
    expect(r).toMatchObject({ ok: false, error: { kind: 'Invalid' } });
    if (!r.ok) expect(r.error.message).toMatch(/decision/);
    const unknown = await runtime.registry.dispatch('no.such.channel', {});
    expect(unknown).toMatchObject({ ok: false, error: { kind: 'Invalid', message: expect.stringMatching(/unknown channel/) } });
  });

  it('runs valid calls and maps service errors to kinds', async () => {
    const info = await runtime.registry.dispatch('app.info', {});
    expect(info).toMatchObject({ ok: true, value: { mode: 'web' } });
    const current = await runtime.registry.dispatch('workspace.current', {});
    expect(current).toMatchObject({ ok: true, value: { dir, counts: { sessions: 3 } } });
    const missing = await runtime.registry.dispatch('jobs.get', { jobId: 'nope' });
    expect(missing).toMatchObject({ ok: false, error: { kind: 'NotFound' } });
    const badDir = await runtime.registry.dispatch('workspace.open', { dir: path.join(dir, 'does-not-exist') });
    expect(badDir).toMatchObject({ ok: false, error: { kind: 'NotFound' } });
    const badKind = await runtime.registry.dispatch('exclusions.add', { kind: 'user', value: 'x' });
    expect(badKind).toMatchObject({ ok: false, error: { kind: 'Invalid', message: expect.stringMatching(/kind/) } });
    const badDays = await runtime.registry.dispatch('retention.prune', { days: -3, dryRun: true });
    expect(badDays).toMatchObject({ ok: false, error: { kind: 'Invalid', message: expect.stringMatching(/days/) } });
    const badSetting = await runtime.registry.dispatch('settings.set', { patch: { storage: { busyTimeoutMs: 'soon' } } });
    expect(badSetting).toMatchObject({ ok: false, error: { kind: 'Invalid', message: expect.stringMatching(/busyTimeoutMs/) } });
  });

  it('answers app.info with the mode and version only', async () => {
    expect(await runtime.registry.dispatch('app.info', {})).toEqual({ ok: true, value: { mode: 'web', version: expect.any(String) } });
  });

  it('checks answers against the output schema: a drifted handler or job result is kind Internal naming the channel and path', async () => {
    const session = new WorkspaceSession({ stateDir });
    session.open(dir);
    const jobs = new JobManager((e) => session.emit(e));
    const drifted = buildHandlers({
      'app.info': (() => ({ mode: 'web', version: 3 })) as never,
      'dataset.collect': (async () => ({ dryRun: true, scanned: 'many' })) as never,
    });
    const registry = createRegistry(drifted, { mode: 'web', version: 't', session, jobs });
    expect(await registry.dispatch('app.info', {})).toEqual({
      ok: false,
      error: { kind: 'Internal', message: expect.stringMatching(/^app\.info answered outside its contract: output\.version: /) },
    });
    // a job's result is checked when it ends: the job fails instead of handing the renderer a wrong shape
    const started = (await registry.dispatch('dataset.collect', {})) as { ok: true; value: { jobId: string } };
    await expect.poll(() => jobs.get(started.value.jobId).state).toBe('failed');
    expect(jobs.get(started.value.jobId).error).toMatchObject({
      kind: 'Internal',
      message: expect.stringMatching(/^dataset\.collect answered outside its contract: output\.scanned/),
    });
    // every real answer of this test file passed the same check: a mismatch would have failed its call
    expect(await runtime.registry.dispatch('workspace.current', {})).toMatchObject({ ok: true });
    session.close();
  });

  it('refuses a change event outside its schema', () => {
    const session = new WorkspaceSession({ stateDir });
    expect(() => session.emit({ type: 'data', version: 'v2', at: 1 } as never)).toThrow(/data event outside its contract: event\.version/);
    session.close();
  });

  it('keeps workspace counts until another connection or a mutating call changes the data', async () => {
    const count = async () =>
      ((await runtime.registry.dispatch('workspace.current', {})) as { ok: true; value: { counts: { sessions: number } } }).value.counts
        .sessions;
    const before = await count();
    const other = openDatabaseFile(dbPathFor(dir));
    other.db
      .prepare("INSERT INTO sessions (id, channel_id, created_at, last_activity_at) VALUES ('channel:test:counts', 'test', 1, 1)")
      .run();
    other.db.close();
    expect(await count()).toBe(before + 1);
  });

  it('runs long work as a job: handle at once, progress pushed, cancel aborts the service signal', async () => {
    const session = new WorkspaceSession({ stateDir });
    session.open(dir);
    const events: Array<{ state: string; done: number }> = [];
    session.onChange((e) => {
      if (e.type === 'job') events.push({ state: e.job.state, done: e.job.done });
    });
    let sawAbort = false;
    const handlers = buildHandlers({
      'import.evals': async (_input, ctx) => {
        for (let i = 1; ; i++) {
          if (ctx.signal?.aborted) {
            sawAbort = true;
            throw new Error('aborted');
          }
          ctx.progress?.(i, null, 'working');
          await new Promise((r) => setTimeout(r, 120));
        }
      },
    });
    const registry = createRegistry(handlers, { mode: 'web', version: 't', session, jobs: new JobManager((e) => session.emit(e)) });
    const started = await registry.dispatch('import.evals', { path: '/nowhere' });
    expect(started).toMatchObject({ ok: true, value: { jobId: expect.any(String) } });
    const jobId = (started as { value: { jobId: string } }).value.jobId;
    await new Promise((r) => setTimeout(r, 400));
    const running = await registry.dispatch('jobs.get', { jobId });
    expect(running).toMatchObject({ ok: true, value: { state: 'running', label: 'working' } });
    expect((running as { value: { done: number } }).value.done).toBeGreaterThanOrEqual(2);
    // running until the job has stopped (its next look at the signal), then cancelled
    expect(await registry.dispatch('jobs.cancel', { jobId })).toMatchObject({ ok: true, value: { state: 'running', cancelling: true } });
    await new Promise((r) => setTimeout(r, 300));
    expect(sawAbort).toBe(true);
    expect(await registry.dispatch('jobs.get', { jobId })).toMatchObject({
      ok: true,
      value: { state: 'cancelled', error: { kind: 'Cancelled', message: 'import.evals cancelled' } },
    });
    expect(events.some((e) => e.state === 'running' && e.done >= 1)).toBe(true);
    expect(events.at(-1)?.state).toBe('cancelled');
    session.close();
  });

  it('logs calls slower than 50 ms with the channel name', async () => {
    const warnings: string[] = [];
    const session = new WorkspaceSession({ stateDir });
    session.open(dir);
    const slow = buildHandlers({
      'jobs.list': () => {
        const until = performance.now() + 70;
        while (performance.now() < until);
        return [];
      },
    });
    const registry = createRegistry(
      slow,
      { mode: 'web', version: 't', session, jobs: new JobManager(() => undefined) },
      { warn: (m) => warnings.push(m) },
    );
    await registry.dispatch('jobs.list', {});
    await registry.dispatch('app.info', {});
    session.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/slow call jobs\.list: \d+ ms/);
  });
});
