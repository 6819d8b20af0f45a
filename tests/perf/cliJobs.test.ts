// The CLI's long work runs in a job worker too (issue 16): `prune`, `backup` and `exclude purge` give the
// output and exit codes of the direct calls they replace (REFLECTION_JOBS_IN_PROCESS=1 keeps those), and
// `watch` runs its scheduled prune in a worker, so its live capture keeps going while the prune holds the
// write lock. Quitting during a prune leaves the database as it was, or pruned whole.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { activeJobWorkers, jobWorkersStarted } from '../../src/api/jobs/runner';
import { register, startWatch } from '../../src/cli/commands/lifecycle';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { addExclusion } from '../../src/core/lifecycle/exclusions';
import { backupDatabase } from '../../src/core/lifecycle/backup';
import { saveSettings } from '../../src/core/lifecycle/settings';
import { buildWorkspace } from '../../bench/dataset/workspace';
import { FakeClock } from '../lifecycle/fakeClock';
import { inspectDatabase, writeLocked } from '../helpers/db';
import { repoRoot, sharedDir, tempWorkspace } from '../helpers/workspace';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 10, 1);
const TABLES = ['sessions', 'conversation_turns', 'memory_gate_decisions', 'write_guardian_audit', 'dataset_samples'];
/** The id the purge commands name, the same in each copy of the workspace. */
const EXCLUDED = '01JB0000000000000000000001';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const inspect = (dbFile: string) => inspectDatabase(dbFile, TABLES);

async function noWorkerLeft(timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (activeJobWorkers() > 0) {
    if (Date.now() > until) throw new Error(`${activeJobWorkers()} job worker(s) still running`);
    await sleep(10);
  }
}

const templates = new Map<number, string>();
/** A copy of a recorded workspace of n decisions (built once per size), all older than 30 days at NOW. */
function workspaceOf(n: number): { dir: string; dbFile: string } {
  let template = templates.get(n);
  if (!template) {
    template = tempWorkspace();
    buildWorkspace(template, n).close();
    templates.set(n, template);
  }
  const dir = tempWorkspace();
  fs.cpSync(template, dir, { recursive: true });
  const { db, file } = openWorkspaceDatabase(dir);
  db.close();
  return { dir, dbFile: file };
}

/** Runs `fn` with every job kept on the calling thread (the direct calls) or not. */
async function jobsHere<T>(inProcess: boolean, fn: () => Promise<T>): Promise<T> {
  const previous = process.env.REFLECTION_JOBS_IN_PROCESS;
  if (inProcess) process.env.REFLECTION_JOBS_IN_PROCESS = '1';
  else delete process.env.REFLECTION_JOBS_IN_PROCESS;
  try {
    return await fn();
  } finally {
    if (previous === undefined) delete process.env.REFLECTION_JOBS_IN_PROCESS;
    else process.env.REFLECTION_JOBS_IN_PROCESS = previous;
  }
}

/** Notes whether a job worker was started until the returned function is called. */
function watchWorkers(): () => boolean {
  const before = jobWorkersStarted();
  return () => jobWorkersStarted() > before;
}

interface CliRun {
  out: string;
  err: string;
  exitCode: number;
  inWorker: boolean;
}

/** One CLI command, run in this process as bin/reflection.cjs runs it; stdout, stderr and the exit code. */
async function cli(args: string[]): Promise<CliRun> {
  await noWorkerLeft(); // the last command's worker may still be exiting
  const program = new Command();
  register(program);
  const writes = { out: process.stdout.write, err: process.stderr.write };
  let out = '';
  let err = '';
  const seen = watchWorkers();
  process.stdout.write = ((chunk: string) => ((out += chunk), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => ((err += chunk), true)) as typeof process.stderr.write;
  process.exitCode = undefined;
  try {
    await program.parseAsync(args, { from: 'user' });
  } finally {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
  }
  const exitCode = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { out, err, exitCode, inWorker: seen() };
}

/** What differs between two runs only because they ran at other times or in other folders. */
function timeless(text: string, dir: string): string {
  return text
    .split(dir)
    .join('<workspace>')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>')
    .replace(/reflection-\d{8}-\d{6}/g, 'reflection-<time>')
    .replace(/"(cutoff|createdAt|elapsedMs)": [\d.]+/g, '"$1": 0')
    .replace(/"previewToken": "[^"]*"/g, '"previewToken": ""')
    .replace(/, \d+ ms\)/g, ', <n> ms)')
    .replace(/\b01[0-9A-HJKMNP-TV-Z]{24}\b/g, '<id>');
}

/** The same commands on two copies of a workspace: once as direct calls, once through the job worker. */
async function bothWays(n: number, commands: (dir: string) => string[][], prepare?: (dir: string) => void) {
  const runs: { results: CliRun[]; after: ReturnType<typeof inspect> }[] = [];
  for (const inProcess of [true, false]) {
    const w = workspaceOf(n);
    prepare?.(w.dir);
    const results: CliRun[] = [];
    for (const args of commands(w.dir)) {
      const r = await jobsHere(inProcess, () => cli([...args, '--workspace', w.dir]));
      results.push({ ...r, out: timeless(r.out, w.dir), err: timeless(r.err, w.dir) });
    }
    runs.push({ results, after: inspect(w.dbFile) });
  }
  await noWorkerLeft();
  const [direct, worker] = runs as [(typeof runs)[0], (typeof runs)[0]];
  return { direct, worker };
}

const sameRuns = (a: CliRun[], b: CliRun[]) => expect(b.map(({ inWorker: _, ...r }) => r)).toEqual(a.map(({ inWorker: _, ...r }) => r));

describe('the CLI runs prune, backup and exclude purge in a job worker', () => {
  it('prune: the same previews, deletions, refusals and exit codes as the direct call', async () => {
    const { direct, worker } = await bothWays(400, () => [
      ['prune', '--days', '30', '--dry-run'],
      ['prune', '--days', '30', '--yes'],
      ['prune', '--days', '3', '--dry-run'],
      ['prune', '--days', '30'],
      ['prune', '--days', '30', '--yes', '--force', '--json'],
    ]);
    sameRuns(direct.results, worker.results);
    expect(direct.results.map((r) => r.inWorker)).toEqual([false, false, false, false, false]);
    expect(worker.results.map((r) => r.inWorker)).toEqual([true, true, true, true, true]);
    const [preview, noBackup, tooFew, unconfirmed, forced] = worker.results as [CliRun, CliRun, CliRun, CliRun, CliRun];
    expect(preview).toMatchObject({ exitCode: 0, err: '', out: expect.stringMatching(/^would delete data older than 30 days/) });
    // errors raised in the worker print with their kind and set the same exit code
    expect(noBackup).toMatchObject({
      exitCode: 1,
      err: expect.stringMatching(/^error \(Conflict\): prune would delete data no copy holds/),
    });
    expect(tooFew).toMatchObject({ exitCode: 2, err: expect.stringMatching(/^error \(Invalid\): days/) });
    expect(unconfirmed).toMatchObject({ exitCode: 2, err: expect.stringMatching(/pass --yes to confirm it/) });
    expect(forced.exitCode).toBe(0);
    const deleted = (JSON.parse(forced.out) as { deleted: Record<string, number> }).deleted;
    expect(deleted.memory_gate_decisions).toBeGreaterThan(0);
    // committed by the worker's connection: the database ends as the direct calls left it
    expect(worker.after).toEqual(direct.after);
  }, 120_000);

  it('backup: the same copy and report; a refused target is refused on main, before any worker', async () => {
    const { direct, worker } = await bothWays(400, (dir) => [
      ['backup', '-o', path.join(dir, 'copy.db'), '--json'],
      ['backup', '-o', path.join(dir, 'copy.db')],
      ['backup', '-o', path.join(dir, 'copy.db'), '--overwrite'],
      ['backup', '-o', path.join(dir, 'USER.md')],
    ]);
    sameRuns(direct.results, worker.results);
    expect(worker.results.map((r) => r.inWorker)).toEqual([true, false, true, false]);
    expect(direct.results.map((r) => r.inWorker)).toEqual([false, false, false, false]);
    const [json, exists, replaced, reserved] = worker.results as [CliRun, CliRun, CliRun, CliRun];
    expect(JSON.parse(json.out)).toMatchObject({ file: '<workspace>/copy.db', integrity: 'ok' });
    expect(exists).toMatchObject({ exitCode: 1, err: expect.stringMatching(/^error \(Conflict\): .*copy\.db already exists/) });
    expect(replaced).toMatchObject({ exitCode: 0, out: expect.stringMatching(/^backup written to <workspace>\/copy\.db .*integrity ok/) });
    expect(reserved.exitCode).toBe(2);
  }, 120_000);

  it('exclude purge: the same preview, deletion and refusals as the direct call', async () => {
    const { direct, worker } = await bothWays(
      400,
      () => [
        ['exclude', 'purge', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--yes'],
        ['exclude', 'purge', EXCLUDED, '--dry-run'],
        ['exclude', 'purge', EXCLUDED],
        ['exclude', 'purge', EXCLUDED, '--yes', '--json'],
      ],
      (dir) => {
        const { db } = openWorkspaceDatabase(dir);
        const { id } = addExclusion({ db, workspaceDir: dir, now: () => NOW }, { kind: 'session', value: 'channel:bench:3' });
        db.prepare('UPDATE exclusions SET id = ? WHERE id = ?').run(EXCLUDED, id);
        db.close();
      },
    );
    sameRuns(direct.results, worker.results);
    expect(worker.results.map((r) => r.inWorker)).toEqual([true, true, true, true]);
    expect(direct.results.map((r) => r.inWorker)).toEqual([false, false, false, false]);
    const [unknown, dry, unconfirmed, real] = worker.results as [CliRun, CliRun, CliRun, CliRun];
    expect(unknown).toMatchObject({ exitCode: 2, err: expect.stringMatching(/^error \(NotFound\): exclusion .* not found/) });
    expect(dry).toMatchObject({ exitCode: 0, out: expect.stringMatching(/^would delete \(1 session\(s\) of session channel:bench:3\)/) });
    expect(unconfirmed).toMatchObject({ exitCode: 2, err: expect.stringMatching(/^error \(Invalid\): purge is irreversible/) });
    expect(JSON.parse(real.out)).toMatchObject({ dryRun: false, sessionIds: ['channel:bench:3'], deleted: { sessions: 1 } });
    expect(worker.after).toEqual(direct.after);
  }, 120_000);

  it('prune interrupted (Ctrl-C) while its worker deletes: the database stays as it was', async () => {
    const w = workspaceOf(6000);
    const before = inspect(w.dbFile);
    const child = spawn(
      process.execPath,
      [path.join(repoRoot, 'bin', 'reflection.cjs'), 'prune', '--days', '30', '--yes', '--force', '--workspace', w.dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    // the preview is printed once its worker is done: a write lock taken after it is the deletion's
    const until = Date.now() + 90_000;
    while (!/kept although old/.test(out) && Date.now() < until) await sleep(5);
    while (!writeLocked(w.dbFile)) {
      if (/^deleted/m.test(out) || Date.now() > until) throw new Error(`the deletion's transaction was not seen: ${out}`);
      await sleep(2);
    }
    child.kill('SIGINT');
    expect(await exited).toBe('SIGINT');
    expect(out).not.toMatch(/^deleted/m);
    expect(writeLocked(w.dbFile)).toBe(false);
    expect(inspect(w.dbFile)).toEqual(before);
  }, 120_000);
});

let stopWatch: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stopWatch?.();
  stopWatch = undefined;
});

interface Watched {
  events: Record<string, unknown>[];
  errors: string[];
  clock: FakeClock;
  db: DB;
  stop: () => Promise<void>;
  idle: () => Promise<void>;
}

/** `reflection watch` on a workspace, as its command starts it, with a clock the test moves. */
function watch(dir: string, pluginRoot?: string): Watched {
  const { db } = openWorkspaceDatabase(dir);
  const clock = new FakeClock(NOW);
  const events: Record<string, unknown>[] = [];
  const errors: string[] = [];
  const lifecycle = startWatch(
    { db, workspaceDir: dir },
    { pluginRoot, clock },
    { out: (o) => events.push(o), err: (t) => errors.push(t) },
  );
  const stop = async () => {
    stopWatch = undefined;
    await lifecycle.stop();
    db.close();
  };
  stopWatch = stop;
  return { events, errors, clock, db, stop, idle: () => lifecycle.retention!.idle() };
}

describe('reflection watch runs its scheduled prune in a job worker', () => {
  it('refuses and deletes as the direct call does, and reports the same', async () => {
    const runs: { events: unknown[]; errors: string[]; inWorker: boolean[]; after: ReturnType<typeof inspect> }[] = [];
    for (const inProcess of [true, false]) {
      const w = workspaceOf(400);
      saveSettings(w.dir, { storage: { retentionDays: 30 } });
      const run = await jobsHere(inProcess, async () => {
        const s = watch(w.dir);
        const inWorker: boolean[] = [];
        const advance = async (ms: number) => {
          const seen = watchWorkers();
          await s.clock.advanceTo(s.clock.now() + ms, s.idle);
          inWorker.push(seen());
        };
        // its first run, a minute after start: no backup holds the data yet
        await advance(61_000);
        await backupDatabase({ db: s.db, workspaceDir: w.dir, now: () => NOW }, {});
        await advance(DAY);
        await s.stop();
        return { events: s.events, errors: s.errors, inWorker };
      });
      runs.push({ ...run, after: inspect(w.dbFile) });
    }
    await noWorkerLeft();
    const [direct, worker] = runs as [(typeof runs)[0], (typeof runs)[0]];
    expect(direct.inWorker).toEqual([false, false]);
    expect(worker.inWorker).toEqual([true, true]);
    // the worker's refusal arrives with the direct call's message
    expect(direct.errors).toEqual([expect.stringMatching(/^retention error: prune would delete data no copy holds/)]);
    expect(worker.errors).toEqual(direct.errors);
    expect(direct.events).toEqual([{ event: 'pruned', deleted: expect.objectContaining({ memory_gate_decisions: 380 }) }]);
    expect(worker.events).toEqual(direct.events);
    expect(worker.after).toEqual(direct.after);
  }, 120_000);

  it('live capture keeps importing while the worker prunes', async () => {
    const w = workspaceOf(6000);
    const pluginRoot = path.join(w.dir, 'plugin');
    const fixture = path.join(sharedDir, 'fixtures', 'reflection-plugin');
    fs.cpSync(path.join(fixture, 'plugin-root'), pluginRoot, { recursive: true });
    fs.cpSync(path.join(fixture, 'workspace'), w.dir, { recursive: true });
    saveSettings(w.dir, { storage: { retentionDays: 30 } });
    const s = watch(w.dir, pluginRoot);
    const reported = () => s.events.map((e) => e.event).filter((e) => e === 'imported' || e === 'pruned');
    const until = Date.now() + 90_000;
    while (reported().length === 0 && Date.now() < until) await sleep(20);
    expect(reported()).toEqual(['imported']);
    await backupDatabase({ db: s.db, workspaceDir: w.dir, now: () => NOW }, {});

    void s.clock.advanceTo(NOW + 61_000);
    await untilWriteLocked(w.dbFile, s);
    // a new day's log appears while the worker deletes; main's timers keep firing meanwhile
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const day2 = path.join(fixture, 'plugin-root-debug', 'logs', 'reflection-2026-03-11.log');
    fs.copyFileSync(day2, path.join(pluginRoot, 'logs', 'reflection-2026-03-11.log'));
    while (writeLocked(w.dbFile) && Date.now() < until) await sleep(2);
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(0);
    // the capture's writes waited for the prune's one transaction, then went in
    while (reported().length < 3 && Date.now() < until) await sleep(20);
    expect(s.errors).toEqual([]);
    // the prune's answer and the capture's report race once the transaction ends
    expect(reported().sort()).toEqual(['imported', 'imported', 'pruned']);
    expect(s.db.prepare("SELECT count(*) FROM import_cursors WHERE importer = 'reflection-logs'").pluck().get()).toBe(2);
    await s.stop();
    await noWorkerLeft();
  }, 180_000);

  it('quitting while the worker prunes lets the prune end whole, as on the calling thread', async () => {
    const w = workspaceOf(6000);
    saveSettings(w.dir, { storage: { retentionDays: 30 } });
    const s = watch(w.dir);
    await backupDatabase({ db: s.db, workspaceDir: w.dir, now: () => NOW }, {});
    const before = inspect(w.dbFile);
    void s.clock.advanceTo(NOW + 61_000);
    await untilWriteLocked(w.dbFile, s);
    await s.stop();
    await noWorkerLeft();
    expect(s.errors).toEqual([]);
    expect(s.events).toEqual([{ event: 'pruned', deleted: expect.objectContaining({ memory_gate_decisions: 5700 }) }]);
    expect(writeLocked(w.dbFile)).toBe(false);
    const after = inspect(w.dbFile);
    expect(after.integrity).toBe('ok');
    expect(before.counts.memory_gate_decisions! - after.counts.memory_gate_decisions!).toBe(5700);
  }, 180_000);
});

async function untilWriteLocked(dbFile: string, s: Watched): Promise<void> {
  const until = Date.now() + 90_000;
  while (!writeLocked(dbFile)) {
    if (s.events.some((e) => e.event === 'pruned') || s.errors.length)
      throw new Error(`the prune ended before its transaction was seen: ${s.errors.join('; ')}`);
    if (Date.now() > until) throw new Error('the worker never took the write lock');
    await sleep(2);
  }
}
