// Main's own long work runs in a job worker too (issue 16): the daily retention prune, the scheduled
// conversation archive and the desktop menu's backup. Each gives what main's direct call gives, and a
// prune cut short by the app closing leaves the database whole, its worker gone and the write lock free.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type * as Electron from 'electron';
import { afterEach, describe, expect, it } from 'vitest';
import { backupInWorker, scheduledArchiveInWorker, scheduledPruneInWorker } from '../../src/api/jobs/internal';
import { activeJobWorkers } from '../../src/api/jobs/runner';
import { createAppRuntime, type AppRuntime } from '../../src/api/runtime';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { backupDatabase } from '../../src/core/lifecycle/backup';
import type { PruneResult } from '../../src/core/lifecycle/retention';
import {
  startArchiveSchedule,
  startRetentionSchedule,
  type ScheduledArchive,
  type ScheduledPrune,
} from '../../src/core/lifecycle/schedule';
import { backupFromMenu, type DialogHost } from '../../src/electron/dialogs';
import type { PruneOutcome } from '../../src/shared/contract';
import { AppError } from '../../src/shared/errors';
import { buildWorkspace } from '../../bench/dataset/workspace';
import { FakeClock } from '../lifecycle/fakeClock';
import { inspectDatabase, writeLocked } from '../helpers/db';
import { tempWorkspace } from '../helpers/workspace';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 10, 1);
const TABLES = ['sessions', 'conversation_turns', 'memory_gate_decisions', 'write_guardian_audit', 'dataset_samples'];

const inspect = (dbFile: string) => inspectDatabase(dbFile, TABLES);

const templates = new Map<number, string>();
/** A copy of a recorded workspace of n decisions (built once per size), all older than 30 days at NOW. */
function workspaceOf(n: number): { dir: string; db: DB; dbFile: string } {
  let template = templates.get(n);
  if (!template) {
    template = tempWorkspace();
    buildWorkspace(template, n).close();
    templates.set(n, template);
  }
  const dir = tempWorkspace();
  fs.cpSync(template, dir, { recursive: true });
  const opened = openWorkspaceDatabase(dir);
  return { dir, db: opened.db, dbFile: opened.file };
}

/** A runner that notes whether a job worker was running right after it began (runInWorker starts it synchronously). */
function observed(inner: ScheduledPrune, seen: boolean[]): ScheduledPrune {
  return (ctx, options) => {
    const before = activeJobWorkers();
    const result = inner(ctx, options);
    seen.push(activeJobWorkers() > before);
    return result;
  };
}

async function noWorkerLeft(timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (activeJobWorkers() > 0) {
    if (Date.now() > until) throw new Error(`${activeJobWorkers()} job worker(s) still running`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface Outcome {
  runs: PruneResult[];
  errors: unknown[];
}

/** Starts the daily schedule on a fake clock; its first run is due at NOW + 60 s. */
function schedule(db: DB, dir: string, prune?: ScheduledPrune) {
  const clock = new FakeClock(NOW);
  const outcome: Outcome = { runs: [], errors: [] };
  const s = startRetentionSchedule(
    { db, workspaceDir: dir },
    { days: 30, clock, prune, onRun: (r) => outcome.runs.push(r), onError: (e) => outcome.errors.push(e) },
  );
  return { clock, outcome, s, advance: (ms: number) => clock.advanceTo(clock.now() + ms, () => s.idle()) };
}

describe('the scheduled retention prune in a worker thread', () => {
  it('runs in a worker on time and refuses, deletes and answers exactly as on main', async () => {
    const main = workspaceOf(400);
    const here = schedule(main.db, main.dir);
    const worker = workspaceOf(400);
    const seen: boolean[] = [];
    const there = schedule(worker.db, worker.dir, observed(scheduledPruneInWorker(), seen));

    // not before its first delay; then no backup holds the data: refused with the same error
    for (const s of [here, there]) await s.advance(59_000);
    expect(seen).toEqual([]);
    for (const s of [here, there]) await s.advance(2_000);
    expect(seen).toEqual([true]);
    expect(there.outcome.runs).toEqual([]);
    const [mainError] = here.outcome.errors as AppError[];
    expect(mainError).toBeInstanceOf(AppError);
    expect(there.outcome.errors).toHaveLength(1);
    expect(there.outcome.errors[0]).toMatchObject({ kind: mainError!.kind, message: mainError!.message });
    expect(inspect(worker.dbFile).counts).toEqual(inspect(main.dbFile).counts);

    // a backup at the same time in each; the next daily run deletes, with the same result
    for (const w of [main, worker]) await backupDatabase({ db: w.db, workspaceDir: w.dir, now: () => NOW }, {});
    const before = inspect(worker.dbFile).counts;
    for (const s of [here, there]) await s.advance(DAY);
    expect(seen).toEqual([true, true]);
    expect(there.outcome.errors).toHaveLength(1);
    expect(here.outcome.runs).toHaveLength(1);
    const [mainRun] = here.outcome.runs;
    expect(mainRun!.cutoff).toBe(NOW + 60_000 + DAY - 30 * DAY);
    expect(mainRun!.deleted.memory_gate_decisions).toBeGreaterThan(0);
    expect(there.outcome.runs).toEqual([mainRun]);
    // committed by the worker's connection, seen on main's
    const after = inspect(worker.dbFile);
    expect(after).toEqual(inspect(main.dbFile));
    expect(before.memory_gate_decisions! - after.counts.memory_gate_decisions!).toBe(mainRun!.deleted.memory_gate_decisions);
    expect(worker.db.prepare('SELECT count(*) FROM memory_gate_decisions').pluck().get()).toBe(after.counts.memory_gate_decisions);

    for (const s of [here, there]) s.s.stop();
    expect(there.clock.pending()).toBe(0);
    await noWorkerLeft();
    main.db.close();
    worker.db.close();
  }, 120_000);
});

/** What a scheduled archive leaves: the day files' bytes, its state rows and its archive records (ids aside). */
function archiveState(dir: string, dbFile: string) {
  const exports = path.join(dir, '.openclaw-reflection', 'exports');
  const files = Object.fromEntries(fs.readdirSync(exports).map((f) => [f, fs.readFileSync(path.join(exports, f), 'utf8')]));
  const db = new Database(dbFile, { readonly: true });
  try {
    const state = db.prepare("SELECT key, value, updated_at FROM lifecycle_state WHERE key LIKE 'archive.%' ORDER BY key").all();
    const records = db
      .prepare('SELECT file_name, kind, since, until, turns, bytes, created_at FROM conversation_archives ORDER BY file_name')
      .all();
    return { files, state, records };
  } finally {
    db.close();
  }
}

describe('the scheduled conversation archive in a worker thread', () => {
  it('runs in a worker at its cron time and writes the same files and rows as on main', async () => {
    const runs = await Promise.all(
      [false, true].map(async (inWorker) => {
        const w = workspaceOf(400);
        const clock = new FakeClock(NOW);
        const seen: boolean[] = [];
        const results: unknown[] = [];
        const errors: unknown[] = [];
        const s = startArchiveSchedule(
          { db: w.db, workspaceDir: w.dir },
          {
            schedule: '0 0 * * *',
            retentionDays: 3650,
            clock,
            archive: inWorker ? observedArchive(seen) : undefined,
            onRun: (r, at) => results.push({ at, turns: r.turns, removed: r.removed, files: r.files.map((f) => path.basename(f.file)) }),
            onError: (e) => errors.push(e),
          },
        );
        await clock.advanceTo(NOW + DAY + 1000, () => s.idle());
        s.stop();
        const state = archiveState(w.dir, w.dbFile);
        w.db.close();
        return { seen, results, errors, state };
      }),
    );
    const [onMain, inWorker] = runs;
    expect(inWorker!.seen).toEqual([true]);
    expect(onMain!.errors).toEqual([]);
    expect(inWorker!.errors).toEqual([]);
    expect(onMain!.results).toEqual([{ at: NOW + DAY, turns: 400, removed: [], files: ['conversations-2026-01-01.jsonl'] }]);
    expect(inWorker!.results).toEqual(onMain!.results);
    expect(inWorker!.state).toEqual(onMain!.state);
    expect(onMain!.state.records).toHaveLength(1);
    await noWorkerLeft();
  }, 120_000);
});

/** The app's archive runner, noting whether a job worker was running right after it began. */
function observedArchive(seen: boolean[]): ScheduledArchive {
  return (ctx, options) => {
    const before = activeJobWorkers();
    const result = scheduledArchiveInWorker(ctx, options);
    seen.push(activeJobWorkers() > before);
    return result;
  };
}

/** A 6,000-decision workspace with a backup, whose prune holds the write lock for about a second. */
async function pruneable(): Promise<ReturnType<typeof workspaceOf>> {
  const w = workspaceOf(6000);
  await backupDatabase({ db: w.db, workspaceDir: w.dir, now: () => NOW }, {});
  return w;
}

/** The app closing, as WorkspaceLifecycle.stop does it: stop the schedule, wait for it, close main's connection. */
async function quit(w: { db: DB }, s: { stop(): void; idle(): Promise<void> }): Promise<void> {
  s.stop();
  await s.idle();
  w.db.close();
}

async function untilWriteLocked(dbFile: string, outcome: Outcome): Promise<void> {
  const until = Date.now() + 60_000;
  while (!writeLocked(dbFile)) {
    if (outcome.runs.length || outcome.errors.length) throw new Error('the prune ended before its transaction was seen');
    if (Date.now() > until) throw new Error('the worker never took the write lock');
    await new Promise((r) => setTimeout(r, 2));
  }
}

describe('the app quits while the scheduled prune runs in a worker', () => {
  it('before the worker began: nothing is deleted and the worker ends', async () => {
    const w = await pruneable();
    const before = inspect(w.dbFile);
    const seen: boolean[] = [];
    const run = schedule(w.db, w.dir, observed(scheduledPruneInWorker(), seen));
    void run.clock.advanceTo(NOW + 60_000);
    // the run starts a microtask after its timer fires; the app quits the moment its worker exists
    while (seen.length === 0) await Promise.resolve();
    expect(seen).toEqual([true]);
    await quit(w, run.s);
    await noWorkerLeft();
    expect(run.outcome.runs).toEqual([]);
    expect(run.outcome.errors).toEqual([expect.objectContaining({ kind: 'Cancelled' })]);
    expect(inspect(w.dbFile)).toEqual(before);
    expect(writeLocked(w.dbFile)).toBe(false);
  }, 120_000);

  it('inside its transaction: the prune ends whole before main closes, as it would on main', async () => {
    const reference = await pruneable();
    const onMain = schedule(reference.db, reference.dir);
    await onMain.advance(60_000);
    const [expected] = onMain.outcome.runs;
    expect(expected?.deleted.memory_gate_decisions).toBe(5700);

    const w = await pruneable();
    const run = schedule(w.db, w.dir, scheduledPruneInWorker());
    void run.clock.advanceTo(NOW + 60_000);
    await untilWriteLocked(w.dbFile, run.outcome);
    await quit(w, run.s);
    expect(run.outcome.errors).toEqual([]);
    expect(run.outcome.runs).toEqual([expected]);
    await noWorkerLeft();
    expect(inspect(w.dbFile)).toEqual(inspect(reference.dbFile));
    expect(inspect(w.dbFile).integrity).toBe('ok');
    expect(writeLocked(w.dbFile)).toBe(false);
    onMain.s.stop();
    reference.db.close();
  }, 120_000);

  it('inside its transaction, past its grace: the worker is terminated and the prune rolled back', async () => {
    const w = await pruneable();
    const before = inspect(w.dbFile);
    const run = schedule(w.db, w.dir, scheduledPruneInWorker({ stopGraceMs: 0 }));
    void run.clock.advanceTo(NOW + 60_000);
    await untilWriteLocked(w.dbFile, run.outcome);
    await quit(w, run.s);
    await noWorkerLeft();
    expect(run.outcome.runs).toEqual([]);
    expect(run.outcome.errors).toEqual([expect.objectContaining({ kind: 'Cancelled' })]);
    // the terminated thread's connection was closed: its open transaction is gone and the lock free
    expect(writeLocked(w.dbFile)).toBe(false);
    expect(inspect(w.dbFile)).toEqual(before);
    const again = openWorkspaceDatabase(w.dir).db;
    try {
      expect(again.prepare('PRAGMA quick_check').pluck().get()).toBe('ok');
    } finally {
      again.close();
    }
  }, 120_000);
});

let runtime: AppRuntime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

/** Electron's dialog as the menu uses it: the save dialog answers `picked`, the rest is recorded. */
function menuHost(rt: AppRuntime, picked: string | null) {
  const shown: string[] = [];
  let answered!: () => void;
  const answer = new Promise<void>((resolve) => (answered = resolve));
  let sawWorker = false;
  const watch = setInterval(() => (sawWorker ||= activeJobWorkers() > 0), 2);
  const dialog = {
    showSaveDialog: () => Promise.resolve(picked ? { canceled: false, filePath: picked } : { canceled: true }),
    showMessageBox: (o: { message: string }) => {
      shown.push(o.message);
      answered();
      return Promise.resolve({ response: 0 });
    },
    showErrorBox: (title: string, message: string) => {
      shown.push(`${title}: ${message}`);
      answered();
    },
  };
  const host: DialogHost = { dialog: dialog as unknown as Electron.Dialog, window: () => null, runtime: () => rt };
  const done = async () => {
    await answer;
    clearInterval(watch);
    return { shown, sawWorker };
  };
  return { host, done };
}

describe("Electron's File > Backup menu copies in a worker", () => {
  function open(dir: string): AppRuntime {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-state-'));
    runtime = createAppRuntime({ mode: 'electron', stateDir, log: { warn: () => undefined } });
    runtime.session.open(dir);
    return runtime;
  }

  it('writes the picked file as main would, replaces it when it exists, and records the backup', async () => {
    const dir = tempWorkspace();
    buildWorkspace(dir, 1500).close();
    const rt = open(dir);
    const dbFile = rt.session.current().dbFile;
    const picked = path.join(tempWorkspace(), 'picked.db');
    fs.writeFileSync(picked, 'an older file the save dialog confirmed replacing');

    const menu = menuHost(rt, picked);
    backupFromMenu(menu.host, rt);
    const { shown, sawWorker } = await menu.done();
    expect(sawWorker).toBe(true);
    const bytes = fs.statSync(picked).size;
    expect(shown).toEqual([`Backup written: ${picked} (${bytes} bytes)`]);
    expect(inspect(picked)).toEqual(inspect(dbFile));

    // main's direct call, as the menu made it before, gives the same copy
    const onMain = path.join(tempWorkspace(), 'on-main.db');
    fs.writeFileSync(onMain, 'old');
    const direct = await backupDatabase(rt.session.serviceContext(), { output: onMain, overwrite: true });
    expect(direct).toMatchObject({ bytes, integrity: 'ok', file: onMain });
    expect(inspect(onMain)).toEqual(inspect(picked));

    // recorded by main: retention knows the data is safe up to now
    const preview = await rt.registry.dispatch('retention.prune', { days: 30, dryRun: true });
    expect(preview.ok && (preview.value as PruneOutcome).safeCopyUntil).toBeGreaterThan(Date.now() - 120_000);
    await noWorkerLeft();
  }, 120_000);

  it('replaces an existing file only when asked; refusals and a cancelled dialog start no worker', async () => {
    const dir = tempWorkspace();
    buildWorkspace(dir, 50).close();
    const rt = open(dir);
    const ctx = rt.session.serviceContext();
    const existing = path.join(tempWorkspace(), 'existing.db');
    fs.writeFileSync(existing, 'keep me');
    const refused = await backupInWorker(ctx, { output: existing }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'Conflict', message: expect.stringContaining('existing.db already exists') });
    expect(fs.readFileSync(existing, 'utf8')).toBe('keep me');
    // the API refuses too: backup.create never replaces a file
    fs.mkdirSync(rt.paths.backupsDir(), { recursive: true });
    fs.writeFileSync(path.join(rt.paths.backupsDir(), 'taken.db'), 'keep me');
    expect(await rt.registry.dispatch('backup.create', { file: 'taken.db' })).toMatchObject({ ok: false, error: { kind: 'Conflict' } });
    expect(fs.readFileSync(path.join(rt.paths.backupsDir(), 'taken.db'), 'utf8')).toBe('keep me');

    // a name the workbench reserves is refused on main, before any copy, and shown to the user
    const reserved = menuHost(rt, path.join(dir, 'MEMORY.md'));
    backupFromMenu(reserved.host, rt);
    const r = await reserved.done();
    expect(r.sawWorker).toBe(false);
    expect(r.shown).toEqual([expect.stringMatching(/^Backup failed: output: MEMORY\.md is a memory file name/)]);

    // cancelled: nothing is written and nothing shown
    const before = fs.readdirSync(rt.paths.backupsDir());
    const cancelled = menuHost(rt, null);
    backupFromMenu(cancelled.host, rt);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fs.readdirSync(rt.paths.backupsDir())).toEqual(before);
    expect(activeJobWorkers()).toBe(0);
  }, 60_000);
});
