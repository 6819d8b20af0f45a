import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { importReflectionLogs } from '../../src/core/importers';
import { startLiveCapture, type LiveCapture } from '../../src/core/lifecycle/live';
import { repoRoot, sharedDir, tempWorkspace } from '../helpers/workspace';

const STAND_IN = path.join(__dirname, 'helpers', 'pluginStandIn.cjs');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Reported {
  type: string;
  i: number;
  file?: string;
  before?: string | null;
  after?: string;
  fact?: string;
  at?: number;
}

function runStandIn(config: Record<string, unknown>, dir: string, onLine: (r: Reported) => void): Promise<number | null> {
  const cfgFile = path.join(dir, 'stand-in.json');
  fs.writeFileSync(cfgFile, JSON.stringify(config));
  const child = spawn(process.execPath, [STAND_IN, cfgFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  readline.createInterface({ input: child.stdout }).on('line', (l) => onLine(JSON.parse(l) as Reported));
  return new Promise((resolve) => child.on('exit', resolve));
}

const content = (db: DB, id: string | null) =>
  id ? (db.prepare('SELECT content FROM file_snapshots WHERE id = ?').pluck().get(id) as string) : null;

async function settle(capture: LiveCapture, db: DB, expectedAudits: number, allowUnattached = false): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    await capture.sync();
    const pending = db
      .prepare("SELECT count(*) FROM write_guardian_audit WHERE source = 'plugin' AND status = 'written' AND after_snapshot_id IS NULL")
      .pluck()
      .get() as number;
    const audits = db.prepare("SELECT count(*) FROM write_guardian_audit WHERE source = 'plugin'").pluck().get() as number;
    if ((audits === expectedAudits && (pending === 0 || allowUnattached)) || Date.now() > deadline) return;
    await sleep(100);
  }
}

describe('live capture', () => {
  it('captures a running plugin: every decision and write, real diffs, across a roll-over, a plugin restart and a watcher restart', async () => {
    const workspace = tempWorkspace();
    const pluginRoot = path.join(workspace, 'plugin');
    fs.mkdirSync(path.join(pluginRoot, 'logs'), { recursive: true });
    for (const f of ['USER.md', 'MEMORY.md', 'TOOLS.md', 'SOUL.md', 'IDENTITY.md']) fs.writeFileSync(path.join(workspace, f), `# ${f}\n`);
    const { db } = openWorkspaceDatabase(workspace);
    const ctx = { db, workspaceDir: workspace };
    const errors: unknown[] = [];
    const start = () => startLiveCapture(ctx, { pluginRoot, onEvent: (e) => e.type === 'error' && errors.push(e.error) });

    const TURNS = 64;
    const reported: Reported[] = [];
    let capture = start();
    let restarting: Promise<void> | undefined;
    // Paced so that a memory file is written about once a second: every write can be told apart even on a loaded machine
    // (the burst test below covers writes that cannot).
    const exited = runStandIn(
      { pluginRoot, workspace, turns: TURNS, rollAt: 40, restartAt: 20, externalAt: 12, pauseMs: [80, 140] },
      workspace,
      (r) => {
        reported.push(r);
        if (r.type === 'progress' && r.i === 30) {
          // The workbench closes for a moment while the plugin keeps going, then opens again.
          restarting = (async () => {
            await capture.stop();
            await sleep(400);
            capture = start();
          })();
        }
      },
    );
    expect(await exited).toBe(0);
    await restarting;
    const writes = reported.filter((r) => r.type === 'write');
    const refused = reported.filter((r) => r.type === 'refused');
    const external = reported.filter((r) => r.type === 'external');
    await settle(capture, db, writes.length + refused.length);
    await capture.stop();
    expect(errors).toEqual([]);

    // every turn and decision, once
    expect(db.prepare('SELECT count(*) FROM conversation_turns').pluck().get()).toBe(TURNS);
    expect(db.prepare('SELECT count(DISTINCT id) FROM memory_gate_decisions').pluck().get()).toBe(TURNS);
    expect(db.prepare('SELECT count(*) FROM memory_gate_decisions').pluck().get()).toBe(TURNS);
    expect(db.prepare("SELECT count(*) FROM memory_gate_decisions WHERE llm_model = 'stand-in-model'").pluck().get()).toBe(TURNS);
    // every write outcome, once, with its candidate fact
    const audits = db
      .prepare(
        `SELECT id, target_file AS file, status, candidate_fact AS fact, before_snapshot_id AS b, after_snapshot_id AS a, diff, lines_added AS added
      FROM write_guardian_audit WHERE source = 'plugin' ORDER BY created_at`,
      )
      .all() as {
      id: string;
      file: string;
      status: string;
      fact: string | null;
      b: string | null;
      a: string | null;
      diff: string | null;
      added: number | null;
    }[];
    expect(audits.filter((a) => a.status === 'written')).toHaveLength(writes.length);
    expect(audits.filter((a) => a.status === 'refused')).toHaveLength(refused.length);
    expect(writes.length).toBeGreaterThan(25);
    // each write carries the before/after the plugin really wrote, and the diff between them
    const byFact = new Map(audits.filter((a) => a.status === 'written').map((a) => [a.fact, a]));
    for (const w of writes) {
      const a = byFact.get(w.fact!);
      expect(a, `audit for ${w.fact}`).toBeDefined();
      expect(a!.file).toBe(w.file);
      expect(content(db, a!.b)).toBe(w.before);
      expect(content(db, a!.a)).toBe(w.after);
      expect(a!.diff).toContain(`+- ${w.fact}`);
      expect(a!.added).toBe(1);
    }
    // the manual edit is the one external write; every provisional change was claimed
    const ext = db
      .prepare(
        "SELECT target_file AS file, before_snapshot_id AS b, after_snapshot_id AS a FROM write_guardian_audit WHERE source = 'external'",
      )
      .all() as { file: string; b: string; a: string }[];
    expect(ext).toHaveLength(1);
    expect(ext[0]!.file).toBe(external[0]!.file);
    expect(content(db, ext[0]!.b)).toBe(external[0]!.before);
    expect(content(db, ext[0]!.a)).toBe(external[0]!.after);
    // both daily files were followed to their end
    const cursors = db
      .prepare("SELECT source_path AS p, byte_offset AS o FROM import_cursors WHERE importer = 'reflection-logs' ORDER BY source_path")
      .all() as { p: string; o: number }[];
    expect(cursors.map((c) => path.basename(c.p))).toEqual(['reflection-2026-03-10.log', 'reflection-2026-03-11.log']);
    for (const c of cursors) expect(c.o).toBe(fs.statSync(c.p).size);
    // file_state points at the latest content of each file
    for (const f of ['USER.md', 'MEMORY.md', 'TOOLS.md', 'SOUL.md', 'IDENTITY.md']) {
      const sid = db.prepare('SELECT snapshot_id FROM file_state WHERE file_name = ?').pluck().get(f) as string;
      expect(content(db, sid)).toBe(fs.readFileSync(path.join(workspace, f), 'utf8'));
    }
    // importing again finds nothing new
    const again = await importReflectionLogs(ctx, { source: pluginRoot, workspace, recordExternalChanges: false });
    expect(Object.values(again.inserted).reduce((a, b) => a + b, 0)).toBe(0);
    db.close();
  }, 90_000);

  it('catches up on start with what happened while it was not running, and follows a truncated log', async () => {
    const workspace = tempWorkspace();
    const pluginRoot = path.join(workspace, 'plugin');
    fs.writeFileSync(path.join(workspace, 'USER.md'), '# USER.md\n');
    const { db } = openWorkspaceDatabase(workspace);
    const ctx = { db, workspaceDir: workspace };
    let capture = startLiveCapture(ctx, { pluginRoot: (fs.mkdirSync(pluginRoot, { recursive: true }), pluginRoot) });
    await capture.sync();
    await capture.stop();
    // closed: the plugin runs for a while
    const reported: Reported[] = [];
    expect(await runStandIn({ pluginRoot, workspace, turns: 12, pauseMs: [5, 10] }, workspace, (r) => reported.push(r))).toBe(0);
    capture = startLiveCapture(ctx, { pluginRoot });
    await settle(capture, db, reported.filter((r) => r.type === 'write' || r.type === 'refused').length, true);
    await capture.sync();
    expect(db.prepare('SELECT count(*) FROM memory_gate_decisions').pluck().get()).toBe(12);
    const writes = reported.filter((r) => r.type === 'write');
    expect(db.prepare("SELECT count(*) FROM write_guardian_audit WHERE source = 'plugin' AND status = 'written'").pluck().get()).toBe(
      writes.length,
    );
    // Files written once while closed get their diff; a file written several times cannot be split
    // into its writes, so that change stays one external write rather than a wrong diff on one of them.
    const perFile = new Map<string, number>();
    for (const w of writes) perFile.set(w.file!, (perFile.get(w.file!) ?? 0) + 1);
    for (const w of writes) {
      const a = db
        .prepare(
          "SELECT before_snapshot_id AS b, after_snapshot_id AS a FROM write_guardian_audit WHERE source = 'plugin' AND candidate_fact = ?",
        )
        .get(w.fact) as { b: string | null; a: string | null };
      if (perFile.get(w.file!) === 1) {
        expect(content(db, a.b)).toBe(w.before);
        expect(content(db, a.a)).toBe(w.after);
      } else expect(a.a).toBeNull();
    }
    const multiple = [...perFile.values()].filter((n) => n > 1).length;
    expect(db.prepare("SELECT count(*) FROM write_guardian_audit WHERE source = 'external'").pluck().get()).toBe(multiple);

    // The plugin's log is truncated and rewritten (a restart that recreated the file): it is read again
    // from the start, and nothing is duplicated.
    const logFile = path.join(pluginRoot, 'logs', 'reflection-2026-03-10.log');
    const lines = fs.readFileSync(logFile, 'utf8').split('\n');
    fs.writeFileSync(logFile, `${lines.slice(0, 4).join('\n')}\n`);
    await capture.sync();
    fs.writeFileSync(logFile, `${lines.join('\n')}`);
    await capture.sync();
    await capture.stop();
    expect(db.prepare('SELECT count(*) FROM memory_gate_decisions').pluck().get()).toBe(12);
    expect(db.prepare('SELECT count(*) FROM conversation_turns').pluck().get()).toBe(12);
    db.close();
  }, 60_000);
});

describe('live capture safety', () => {
  it('never reads a memory file that is a symlink leaving the workspace', async () => {
    const workspace = tempWorkspace();
    const outside = tempWorkspace('reflection-outside-');
    fs.writeFileSync(path.join(outside, 'secret.md'), 'secret outside the workspace\n');
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(workspace, 'SOUL.md'));
    fs.writeFileSync(path.join(workspace, 'USER.md'), '# USER.md\n');
    const pluginRoot = path.join(workspace, 'plugin');
    fs.mkdirSync(pluginRoot);
    const { db } = openWorkspaceDatabase(workspace);
    const capture = startLiveCapture({ db, workspaceDir: workspace }, { pluginRoot });
    await capture.sync();
    fs.appendFileSync(path.join(outside, 'secret.md'), 'more\n');
    await capture.sync();
    await capture.stop();
    expect(db.prepare("SELECT count(*) FROM file_snapshots WHERE content LIKE '%secret outside%'").pluck().get()).toBe(0);
    expect(db.prepare("SELECT count(*) FROM file_state WHERE file_name = 'USER.md'").pluck().get()).toBe(1);
    db.close();
  });
});

describe('live capture under a burst', () => {
  it('never gives a write a diff that is not its own: writes it cannot tell apart stay one external change naming them', async () => {
    const workspace = tempWorkspace();
    const pluginRoot = path.join(workspace, 'plugin');
    fs.mkdirSync(path.join(pluginRoot, 'logs'), { recursive: true });
    for (const f of ['USER.md', 'MEMORY.md', 'TOOLS.md', 'SOUL.md', 'IDENTITY.md']) fs.writeFileSync(path.join(workspace, f), `# ${f}\n`);
    const { db } = openWorkspaceDatabase(workspace);
    const capture = startLiveCapture({ db, workspaceDir: workspace }, { pluginRoot });
    const reported: Reported[] = [];
    expect(await runStandIn({ pluginRoot, workspace, turns: 160, ratePerSecond: 250 }, workspace, (r) => reported.push(r))).toBe(0);
    const writes = reported.filter((r) => r.type === 'write');
    await settle(capture, db, writes.length + reported.filter((r) => r.type === 'refused').length, true);
    await sleep(300);
    await capture.sync();
    await capture.stop();
    let attached = 0;
    for (const w of writes) {
      const a = db
        .prepare(
          "SELECT id, before_snapshot_id AS b, after_snapshot_id AS a, lines_added AS added, json_extract(metadata, '$.liveCapture.coalescedInto') AS coalescedInto FROM write_guardian_audit WHERE source = 'plugin' AND candidate_fact = ?",
        )
        .get(w.fact) as { id: string; b: string | null; a: string | null; added: number | null; coalescedInto: string | null };
      if (a.a) {
        attached++;
        expect(content(db, a.b)).toBe(w.before);
        expect(content(db, a.a)).toBe(w.after);
        expect(a.added).toBe(1);
      } else {
        expect(a.coalescedInto, `write ${w.fact} has neither its diff nor the change it is part of`).not.toBeNull();
        const covers = db
          .prepare(
            "SELECT json_extract(metadata, '$.liveCapture.coversPluginWrites') FROM write_guardian_audit WHERE id = ? AND source = 'external'",
          )
          .pluck()
          .get(a.coalescedInto) as string;
        expect(JSON.parse(covers)).toContain(a.id);
      }
    }
    expect(attached).toBeGreaterThan(0);
    db.close();
  }, 60_000);
});

describe('reflection watch (CLI)', () => {
  it('imports the shared plugin fixture live and stops cleanly on SIGINT', async () => {
    const workspace = tempWorkspace();
    const pluginRoot = path.join(workspace, 'plugin');
    fs.cpSync(path.join(sharedDir, 'fixtures', 'reflection-plugin', 'plugin-root'), pluginRoot, { recursive: true });
    fs.cpSync(path.join(sharedDir, 'fixtures', 'reflection-plugin', 'workspace'), workspace, { recursive: true });
    const child = spawn(
      process.execPath,
      [path.join(repoRoot, 'bin', 'reflection.cjs'), 'watch', '--plugin-root', pluginRoot, '--workspace', workspace, '--json'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const events: { event: string; inserted?: Record<string, number> }[] = [];
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    readline.createInterface({ input: child.stdout }).on('line', (l) => events.push(JSON.parse(l)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const deadline = Date.now() + 20_000;
    while (!events.some((e) => e.event === 'imported') && Date.now() < deadline) await sleep(50);
    // a new day's file appears while it runs
    const day2 = fs.readFileSync(
      path.join(sharedDir, 'fixtures', 'reflection-plugin', 'plugin-root-debug', 'logs', 'reflection-2026-03-11.log'),
      'utf8',
    );
    fs.writeFileSync(path.join(pluginRoot, 'logs', 'reflection-2026-03-11.log'), day2);
    while (events.filter((e) => e.event === 'imported').length < 2 && Date.now() < deadline) await sleep(50);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
    expect(events[0]?.event).toBe('watching');
    expect(events.at(-1)!.event).toBe('stopped');
    const { db } = openWorkspaceDatabase(workspace);
    const decisions = db.prepare('SELECT count(*) FROM memory_gate_decisions').pluck().get() as number;
    expect(decisions).toBeGreaterThan(5);
    expect(db.prepare("SELECT count(*) FROM import_cursors WHERE importer = 'reflection-logs'").pluck().get()).toBe(2);
    expect(
      db
        .prepare(
          "SELECT candidate_fact FROM write_guardian_audit WHERE status = 'written' AND source = 'plugin' ORDER BY created_at LIMIT 1",
        )
        .pluck()
        .get(),
    ).toBe('prefers short replies without long intros');
    db.close();
  }, 60_000);
});
