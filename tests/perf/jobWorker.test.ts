// Long jobs run in a worker thread on their own connection (issue 16): the job API (handle, progress,
// events, cancel, errors) is unchanged, main keeps answering list calls while the job writes, and what
// the worker committed is visible to main's connection.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/api/runtime';
import { activeJobWorkers, runInWorker } from '../../src/api/jobs/runner';
import { dbPathFor } from '../../src/core/db/connection';
import { writeGateBuffer } from '../../src/core/db/writeGate';
import type { BackupResult, ChangeEvent, ExclusionDto, JobStatus, PruneOutcome, PurgeOutcome } from '../../src/shared/contract';
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
    const events: JobStatus[] = [];
    rt.session.onChange((e) => e.type === 'job' && e.job.jobId === jobId && events.push(e.job));
    while (rt.jobs.get(jobId).done === 0 && rt.jobs.get(jobId).state === 'running') await new Promise((r) => setTimeout(r, 10));
    // still running until the worker has stopped: it ends its transaction and builds the indexes it set aside
    expect(rt.jobs.cancel(jobId)).toMatchObject({ state: 'running', cancelling: true, error: null });
    expect(activeJobWorkers()).toBe(1);
    expect(await settle(rt, jobId)).toMatchObject({ state: 'cancelled', cancelling: false, error: { kind: 'Cancelled' } });
    const afterCancel = events.slice(events.findIndex((e) => e.cancelling));
    expect(afterCancel.some((e) => e.state === 'running' && e.label === 'rebuilding indexes' && e.total === 4)).toBe(true);
    expect(afterCancel.at(-1)).toMatchObject({ state: 'cancelled' });
    expect(rt.session.db.prepare('SELECT count(*) FROM deferred_indexes').pluck().get()).toBe(0);
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

  it('a cancel during the index rebuild waits for it, past the grace period that stops a worker outright', async () => {
    const dir = tempWorkspace();
    buildWorkspace(dir, 3000).close();
    const before = indexNames(dbPathFor(dir));
    const abort = new AbortController();
    const labels: string[] = [];
    const data = {
      channel: 'dataset.collect',
      input: { autoApprove: true },
      workspaceDir: dir,
      dbFile: dbPathFor(dir),
      writeGate: writeGateBuffer(),
    } as const;
    // no grace at all: a worker that had not said it is finishing would be stopped at once
    const result = (await runInWorker(
      data,
      {
        signal: abort.signal,
        progress: (_done, _total, label) => {
          labels.push(label ?? '');
          if (label === 'rebuilding indexes') abort.abort();
        },
      },
      0,
    )) as { scanned: number };
    expect(result.scanned).toBe(3000);
    expect(labels.filter((l) => l === 'rebuilding indexes').length).toBe(5); // before each of the four, and once built
    expect(labels.indexOf('writing the duplicate index')).toBeLessThan(labels.indexOf('rebuilding indexes'));
    expect(indexNames(dbPathFor(dir))).toEqual(before);
    const db = new Database(dbPathFor(dir), { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) FROM deferred_indexes').pluck().get()).toBe(0);
    } finally {
      db.close();
    }
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

/** The indexes of dataset_samples, read on a connection of its own. */
function indexNames(dbFile: string): string[] {
  const db = new Database(dbFile, { readonly: true });
  try {
    return db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'dataset_samples' ORDER BY name")
      .pluck()
      .all() as string[];
  } finally {
    db.close();
  }
}

/** Row counts of the tables a prune deletes from, read on a connection of its own. */
function counts(dbFile: string): Record<string, number> {
  const db = new Database(dbFile, { readonly: true });
  try {
    const tables = ['sessions', 'conversation_turns', 'memory_gate_decisions', 'write_guardian_audit', 'dataset_samples', 'file_snapshots'];
    return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number]));
  } finally {
    db.close();
  }
}

/** Dispatches a call and reports whether a job worker was running right after (the handler starts it synchronously). */
async function callSeen<T>(rt: AppRuntime, channel: string, input: unknown): Promise<{ value: T; inWorker: boolean }> {
  const before = activeJobWorkers();
  const pending = call<T>(rt, channel, input);
  const inWorker = activeJobWorkers() > before;
  return { value: await pending, inWorker };
}

/** Dispatches a call that may fail, and reports whether a job worker was running right after. */
async function dispatchSeen(rt: AppRuntime, channel: string, input: unknown) {
  const before = activeJobWorkers();
  const pending = rt.registry.dispatch(channel, input);
  const inWorker = activeJobWorkers() > before;
  return { answer: await pending, inWorker };
}

/** The same calls on a copy of the workspace with every job kept on main's connection: the answers to compare with. */
async function inProcess<T>(run: () => Promise<T>): Promise<T> {
  const previous = process.env.REFLECTION_JOBS_IN_PROCESS;
  process.env.REFLECTION_JOBS_IN_PROCESS = '1';
  try {
    return await run();
  } finally {
    if (previous === undefined) delete process.env.REFLECTION_JOBS_IN_PROCESS;
    else process.env.REFLECTION_JOBS_IN_PROCESS = previous;
  }
}

describe('heavy calls in a worker thread', () => {
  async function pruneTwice(rt: AppRuntime): Promise<{ dry: PruneOutcome; real: PruneOutcome; inWorker: boolean[] }> {
    const dry = await callSeen<PruneOutcome>(rt, 'retention.prune', { days: 30, dryRun: true });
    const real = await callSeen<PruneOutcome>(rt, 'retention.prune', {
      days: 30,
      confirm: true,
      previewToken: dry.value.previewToken,
      force: true,
    });
    return { dry: dry.value, real: real.value, inWorker: [dry.inWorker, real.inWorker] };
  }

  it('retention.prune runs in a worker and answers, deletes and refuses exactly as on main', async () => {
    const template = tempWorkspace();
    buildWorkspace(template, 400).close();
    const here = tempWorkspace();
    fs.cpSync(template, here, { recursive: true });
    const main = await inProcess(async () => {
      const rt = open(here);
      const r = await pruneTwice(rt);
      await rt.close();
      return r;
    });
    expect(main.inWorker).toEqual([false, false]);

    const rt = open(template);
    const dbFile = rt.session.current().dbFile;
    const before = counts(dbFile);
    const events: ChangeEvent[] = [];
    rt.session.onChange((e) => events.push(e));
    const worker = await pruneTwice(rt);
    expect(worker.inWorker).toEqual([true, true]);
    expect(worker.dry.deleted.memory_gate_decisions).toBeGreaterThan(0);
    // the same answer as on main (the cutoff follows the clock; what it selects does not)
    for (const k of ['dryRun', 'deleted', 'kept', 'needsForce', 'safeCopyUntil'] as const) {
      expect(worker.dry[k], `dry run ${k}`).toEqual(main.dry[k]);
      expect(worker.real[k], `real run ${k}`).toEqual(main.real[k]);
    }
    expect(worker.real.deleted).toEqual(worker.dry.deleted);
    // committed by the worker, seen by main's connection, and announced with the areas a prune changes
    const after = counts(dbFile);
    expect(after).toEqual(counts(path.join(here, path.relative(template, dbFile))));
    expect(before.memory_gate_decisions! - after.memory_gate_decisions!).toBe(worker.real.deleted.memory_gate_decisions);
    expect(rt.session.db.prepare('SELECT count(*) FROM memory_gate_decisions').pluck().get()).toBe(after.memory_gate_decisions);
    expect(events.some((e) => e.type === 'data' && e.areas?.includes('decisions'))).toBe(true);
    // a refusal in the worker arrives with its kind: the preview no longer matches the data
    const stale = await rt.registry.dispatch('retention.prune', {
      days: 30,
      confirm: true,
      previewToken: worker.dry.previewToken,
      force: true,
    });
    expect(stale).toMatchObject({ ok: false, error: { kind: 'Conflict', message: expect.stringMatching(/changed since the preview/) } });
  }, 120_000);

  it('backup.create copies in a worker, consistent while a collection writes, and main records it for retention', async () => {
    const dir = tempWorkspace();
    buildWorkspace(dir, 1500).close();
    const rt = open(dir);
    const dbFile = rt.session.current().dbFile;
    const here = await inProcess(() => callSeen<BackupResult>(rt, 'backup.create', { file: 'on-main.db' }));
    expect(here.inWorker).toBe(false);
    const quiet = await callSeen<BackupResult>(rt, 'backup.create', { file: 'quiet.db' });
    expect(quiet.inWorker).toBe(true);
    expect(quiet.value).toMatchObject({
      integrity: 'ok',
      pages: here.value.pages,
      file: path.join(path.dirname(here.value.file), 'quiet.db'),
    });
    expect(fs.statSync(quiet.value.file).size).toBe(quiet.value.bytes);
    expect(counts(quiet.value.file)).toEqual(counts(dbFile));
    expect(counts(quiet.value.file)).toEqual(counts(here.value.file));

    // while a collection commits in another worker, the copy is one consistent snapshot
    const { jobId } = await call<{ jobId: string }>(rt, 'dataset.collect', { autoApprove: true });
    while (rt.jobs.get(jobId).done === 0 && rt.jobs.get(jobId).state === 'running') await new Promise((r) => setTimeout(r, 10));
    const busy = await call<BackupResult>(rt, 'backup.create', { file: 'busy.db' });
    const done = await settle(rt, jobId);
    expect(done.state).toBe('done');
    expect(busy.integrity).toBe('ok');
    const copied = counts(busy.file).dataset_samples!;
    expect(copied).toBeLessThanOrEqual((done.result as { added: number }).added);
    // recorded by main: retention now knows the data is safe up to the last backup
    const preview = await call<PruneOutcome>(rt, 'retention.prune', { days: 30, dryRun: true });
    expect(preview.safeCopyUntil).toBeGreaterThan(Date.now() - 120_000);
    expect(preview.needsForce).toBe(false);
    expect(await rt.registry.dispatch('backup.create', { file: '../outside.db' })).toMatchObject({ ok: false, error: { kind: 'Invalid' } });
  }, 180_000);

  /** Excludes one session, then purges it: a dry run, the real one, one unconfirmed and one of an unknown id. */
  async function purgeOf(rt: AppRuntime, events: ChangeEvent[]) {
    const ex = await call<ExclusionDto>(rt, 'exclusions.add', { kind: 'session', value: 'channel:bench:3' });
    events.length = 0;
    const dry = await callSeen<PurgeOutcome>(rt, 'exclusions.purge', { id: ex.id, dryRun: true });
    const real = await callSeen<PurgeOutcome>(rt, 'exclusions.purge', { id: ex.id, confirm: true });
    const unconfirmed = await dispatchSeen(rt, 'exclusions.purge', { id: ex.id });
    const unknown = await dispatchSeen(rt, 'exclusions.purge', { id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', confirm: true });
    // the exclusion's id and time are new in each workspace; what the purge found and did is not
    const same = ({ exclusion: { id: _id, createdAt: _at, ...exclusion }, ...rest }: PurgeOutcome) => ({ ...rest, exclusion });
    return {
      answers: [same(dry.value), same(real.value), unconfirmed.answer, unknown.answer],
      inWorker: [dry.inWorker, real.inWorker, unconfirmed.inWorker, unknown.inWorker],
    };
  }

  it('exclusions.purge runs in a worker and answers, deletes and refuses exactly as on main', async () => {
    const template = tempWorkspace();
    buildWorkspace(template, 400).close();
    const here = tempWorkspace();
    fs.cpSync(template, here, { recursive: true });
    const main = await inProcess(async () => {
      const rt = open(here);
      const r = await purgeOf(rt, []);
      await rt.close();
      return r;
    });
    expect(main.inWorker).toEqual([false, false, false, false]);

    const rt = open(template);
    const dbFile = rt.session.current().dbFile;
    const before = counts(dbFile);
    const events: ChangeEvent[] = [];
    rt.session.onChange((e) => events.push(e));
    const worker = await purgeOf(rt, events);
    expect(worker.inWorker).toEqual([true, true, true, true]);
    expect(worker.answers).toEqual(main.answers);
    const [dry, real, unconfirmed, unknown] = worker.answers as [PurgeOutcome, PurgeOutcome, unknown, unknown];
    expect(dry).toMatchObject({ dryRun: true, sessionIds: ['channel:bench:3'], deleted: { sessions: 1, memory_gate_decisions: 25 } });
    expect(real).toMatchObject({ dryRun: false, deleted: dry.deleted });
    // refusals raised in the worker arrive with their kind and message
    expect(unconfirmed).toMatchObject({ ok: false, error: { kind: 'Invalid', message: expect.stringMatching(/purge is irreversible/) } });
    expect(unknown).toMatchObject({ ok: false, error: { kind: 'NotFound', message: expect.stringMatching(/not found/) } });
    // committed by the worker, seen by main's connection, and announced with the areas a purge changes
    const after = counts(dbFile);
    expect(after).toEqual(counts(path.join(here, path.relative(template, dbFile))));
    expect(before.sessions! - after.sessions!).toBe(1);
    expect(before.memory_gate_decisions! - after.memory_gate_decisions!).toBe(real.deleted.memory_gate_decisions);
    expect(rt.session.db.prepare('SELECT count(*) FROM memory_gate_decisions').pluck().get()).toBe(after.memory_gate_decisions);
    expect(events.some((e) => e.type === 'data' && e.areas?.includes('decisions') && e.areas.includes('exclusions'))).toBe(true);
  }, 120_000);
});
