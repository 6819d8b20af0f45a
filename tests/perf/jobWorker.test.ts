// Long jobs run in a worker thread on their own connection (issue 16): the job API (handle, progress,
// events, cancel, errors) is unchanged, main keeps answering list calls while the job writes, and what
// the worker committed is visible to main's connection.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/api/runtime';
import { activeJobWorkers } from '../../src/api/jobs/runner';
import type { ChangeEvent, JobStatus } from '../../src/shared/contract';
import { buildWorkspace } from '../../bench/dataset/workspace';
import { tempWorkspace } from '../helpers/workspace';

let runtime: AppRuntime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

function open(dir: string): AppRuntime {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-state-'));
  runtime = createAppRuntime({ mode: 'web', stateDir, log: { warn: () => undefined } });
  runtime.session.open(dir);
  return runtime;
}

async function call<T>(rt: AppRuntime, channel: string, input: unknown): Promise<T> {
  const r = await rt.registry.dispatch(channel, input);
  if (!r.ok) throw new Error(`${channel}: ${r.error.kind}: ${r.error.message}`);
  return r.value as T;
}

async function settle(rt: AppRuntime, jobId: string, timeoutMs = 120_000): Promise<JobStatus> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = rt.jobs.get(jobId);
    if (s.state !== 'running' && activeJobWorkers() === 0) return s;
    if (Date.now() > until) throw new Error(`job ${jobId} still ${s.state} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('jobs in a worker thread', () => {
  it('collects in a worker while main answers gate.list, then main sees every sample', async () => {
    const dir = tempWorkspace();
    buildWorkspace(dir, 1500).close();
    const rt = open(dir);
    const events: ChangeEvent[] = [];
    rt.session.onChange((e) => events.push(e));
    const { jobId } = await call<{ jobId: string }>(rt, 'dataset.collect', { autoApprove: true });
    let sawWorker = false;
    let pages = 0;
    while (rt.jobs.get(jobId).state === 'running') {
      sawWorker ||= activeJobWorkers() > 0;
      // a functional bound, not a benchmark: main answers a list page while the job writes
      const t0 = performance.now();
      const page = await call<{ items: unknown[] }>(rt, 'gate.list', { limit: 50 });
      expect(page.items.length).toBe(50);
      expect(performance.now() - t0).toBeLessThan(2000);
      pages++;
      await new Promise((r) => setTimeout(r, 20));
    }
    const done = await settle(rt, jobId);
    expect(done.state).toBe('done');
    expect(sawWorker).toBe(true);
    expect(pages).toBeGreaterThan(0);
    const result = done.result as { scanned: number; added: number };
    expect(result.scanned).toBe(1500);
    expect(result.added).toBeGreaterThan(1500);
    // committed by the worker's connection, read back on main's
    expect(rt.session.db.prepare('SELECT count(*) FROM dataset_samples').pluck().get()).toBe(result.added);
    const jobEvents = events.filter((e) => e.type === 'job' && e.job.jobId === jobId);
    expect(jobEvents.some((e) => e.type === 'job' && e.job.state === 'running' && e.job.done > 0)).toBe(true);
    expect(jobEvents.at(-1)).toMatchObject({ type: 'job', job: { state: 'done' } });
    expect(events.some((e) => e.type === 'data')).toBe(true);
  });

  it('a cancelled job stops at its next page; collecting again adds only the rest', async () => {
    const dir = tempWorkspace();
    buildWorkspace(dir, 3000).close();
    const rt = open(dir);
    const { jobId } = await call<{ jobId: string }>(rt, 'dataset.collect', { autoApprove: true });
    while (rt.jobs.get(jobId).done === 0 && rt.jobs.get(jobId).state === 'running') await new Promise((r) => setTimeout(r, 10));
    expect(rt.jobs.cancel(jobId).state).toBe('cancelled');
    expect(await settle(rt, jobId)).toMatchObject({ state: 'cancelled', error: { kind: 'Cancelled' } });
    // the registry answers the same: the kind, not a message, says the curator stopped it
    expect(await rt.registry.dispatch('jobs.get', { jobId })).toMatchObject({
      ok: true,
      value: { state: 'cancelled', error: { kind: 'Cancelled' } },
    });
    const partial = rt.session.db.prepare('SELECT count(*) FROM dataset_samples').pluck().get() as number;
    const again = await call<{ jobId: string }>(rt, 'dataset.collect', { autoApprove: true });
    const rest = await settle(rt, again.jobId);
    expect(rest.state).toBe('done');
    const total = rt.session.db.prepare('SELECT count(*) FROM dataset_samples').pluck().get() as number;
    expect(total).toBe(partial + (rest.result as { added: number }).added);
    expect(partial).toBeLessThan(total);
  });

  it('an error in the worker arrives with its kind and message', async () => {
    const dir = tempWorkspace();
    buildWorkspace(dir, 20).close();
    const rt = open(dir);
    // nothing collected yet: exporting is refused as Invalid, in the worker, and reported as such
    const { jobId } = await call<{ jobId: string }>(rt, 'dataset.export', { format: 'alpaca' });
    const s = await settle(rt, jobId);
    expect(s.state).toBe('failed');
    expect(s.error?.kind).toBe('Invalid');
    expect(s.error?.message).toMatch(/export/i);
  });
});
