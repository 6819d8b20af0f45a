// Live capture lag: the time from the plugin writing a log line to its row being queryable from
// another connection, under a steady 50 decisions/s (half of them writing a memory file).
// Baseline in the same run: how late a bare fs.watch listener learns of the same lines.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import type { BenchSection } from '../index';
import { fmt, percentile, timeIt } from '../util';
import { generateDemoWorkspace } from '../../src/core/demo';
import { backupDatabase } from '../../src/core/lifecycle/backup';
import { pruneOldData } from '../../src/core/lifecycle/retention';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { startLiveCapture } from '../../src/core/lifecycle/live';

const RATE = 50;
const SECONDS = Number(process.env.BENCH_LIFECYCLE_SECONDS ?? 8);

async function run(): Promise<void> {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-lifecycle-'));
  try {
    const pluginRoot = path.join(workspace, 'plugin');
    const logsDir = path.join(pluginRoot, 'logs');
    fs.mkdirSync(logsDir, { recursive: true });
    for (const f of ['USER.md', 'MEMORY.md', 'TOOLS.md', 'SOUL.md', 'IDENTITY.md']) fs.writeFileSync(path.join(workspace, f), `# ${f}\n`);
    const { db, file } = openWorkspaceDatabase(workspace);
    const capture = startLiveCapture({ db, workspaceDir: workspace }, { pluginRoot });
    const reader = new Database(file, { readonly: true });

    // Baseline: a raw listener that only reads the appended bytes and parses the decision lines.
    const raw: number[] = [];
    const logFile = path.join(logsDir, 'reflection-2026-03-10.log');
    let offset = 0;
    const watcher = fs.watch(logsDir, () => {
      const seen = Date.now();
      let text = '';
      try {
        const fd = fs.openSync(logFile, 'r');
        const size = fs.fstatSync(fd).size;
        const buf = Buffer.alloc(size - offset);
        fs.readSync(fd, buf, 0, buf.length, offset);
        fs.closeSync(fd);
        text = buf.toString('utf8');
        const cut = text.lastIndexOf('\n') + 1;
        offset += Buffer.byteLength(text.slice(0, cut));
        text = text.slice(0, cut);
      } catch {
        return;
      }
      for (const line of text.split('\n')) {
        if (line.includes('"memory_gate decision evaluated"')) raw.push(seen - Date.parse(JSON.parse(line).timestamp));
      }
    });

    const decisionLag: number[] = [];
    const attachLag: number[] = [];
    let lastSeq = 0;
    const attached = new Set<string>();
    const newDecisions = reader.prepare('SELECT seq, created_at FROM memory_gate_decisions WHERE seq > ? ORDER BY seq');
    const withDiff = reader.prepare(
      `SELECT id, created_at FROM write_guardian_audit WHERE source = 'plugin' AND after_snapshot_id IS NOT NULL AND created_at > ?`,
    );
    const started = Date.now();
    const probe = setInterval(() => {
      const now = Date.now();
      for (const r of newDecisions.all(lastSeq) as { seq: number; created_at: number }[]) {
        decisionLag.push(now - r.created_at);
        lastSeq = r.seq;
      }
      for (const r of withDiff.all(started - 1000) as { id: string; created_at: number }[]) {
        if (attached.has(r.id)) continue;
        attached.add(r.id);
        attachLag.push(now - r.created_at);
      }
    }, 5);

    const cfgFile = path.join(workspace, 'stand-in.json');
    fs.writeFileSync(cfgFile, JSON.stringify({ pluginRoot, workspace, turns: RATE * SECONDS, ratePerSecond: RATE }));
    const child = spawn(
      process.execPath,
      [path.join(__dirname, '..', '..', 'tests', 'lifecycle', 'helpers', 'pluginStandIn.cjs'), cfgFile],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    await new Promise((resolve) => child.on('exit', resolve));
    const deadline = Date.now() + 10_000;
    while (decisionLag.length < RATE * SECONDS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    clearInterval(probe);
    watcher.close();
    await capture.stop();
    const writes = db
      .prepare("SELECT count(*) FROM write_guardian_audit WHERE source = 'plugin' AND status = 'written'")
      .pluck()
      .get() as number;
    reader.close();
    db.close();

    const p95 = percentile(decisionLag, 95);
    const rawP95 = percentile(raw, 95);
    console.log(
      `load: ${RATE} decisions/s for ${SECONDS} s (${RATE * SECONDS} decisions, ${writes} memory-file writes); passes: ${capture.stats.passes}, imports: ${capture.stats.imports}`,
    );
    console.log(
      `decision line -> queryable row: p50 ${fmt(percentile(decisionLag, 50), 0)} ms, p95 ${fmt(p95, 0)} ms, max ${fmt(Math.max(...decisionLag), 0)} ms (${decisionLag.length} rows; aim p95 < 1000 ms)`,
    );
    console.log(
      `write line -> diff attached:    p50 ${fmt(percentile(attachLag, 50), 0)} ms, p95 ${fmt(percentile(attachLag, 95), 0)} ms (${attachLag.length} of ${writes} writes)`,
    );
    console.log(
      `raw fs.watch baseline:          p50 ${fmt(percentile(raw, 50), 0)} ms, p95 ${fmt(rawP95, 0)} ms; capture p95 / raw p95 = ${fmt(p95 / Math.max(1, rawP95), 1)}x`,
    );
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

/** Backup and retention on a generated workspace; baseline: copying the database file. */
async function backupAndPrune(): Promise<void> {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-lifecycle-db-'));
  try {
    const sessions = Number(process.env.BENCH_LIFECYCLE_SESSIONS ?? 400);
    const summary = generateDemoWorkspace(workspace, { sessions, seed: 7 });
    const { db, file } = openWorkspaceDatabase(workspace);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const copy = timeIt(() => fs.copyFileSync(file, path.join(workspace, 'raw-copy.db')));
    const t0 = performance.now();
    const backup = await backupDatabase({ db, workspaceDir: workspace }, { output: path.join(workspace, 'backup.db') });
    const backupMs = performance.now() - t0;
    const span = summary.lastAt - summary.firstAt;
    const now = summary.lastAt;
    const days = Math.max(7, Math.round(span / 2 / 86_400_000));
    const dry = timeIt(() => pruneOldData({ db, workspaceDir: workspace, now: () => now }, { days, dryRun: true }));
    const real = timeIt(() =>
      pruneOldData(
        { db, workspaceDir: workspace, now: () => now },
        { days, confirm: true, previewToken: dry.value.previewToken, force: true },
      ),
    );
    db.close();
    console.log(`workspace: ${summary.turns} turns, ${summary.decisions} decisions, ${(backup.bytes / 1048576).toFixed(1)} MiB`);
    console.log(
      `backup (online API + integrity_check): ${fmt(backupMs, 0)} ms; raw file copy ${fmt(copy.ms, 1)} ms; ratio ${fmt(backupMs / Math.max(0.1, copy.ms), 1)}x`,
    );
    console.log(
      `prune half of the history (${days} days): dry run ${fmt(dry.ms, 0)} ms, real ${fmt(real.ms, 0)} ms; deleted ${real.value.deleted.conversation_turns ?? 0} turns, freed ${real.value.freedPages} pages`,
    );
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

export const section: BenchSection = {
  name: 'lifecycle: live capture lag, backup, retention',
  run: async () => {
    await run();
    await backupAndPrune();
  },
};
