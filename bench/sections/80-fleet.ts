// Fleet export: W workspaces x N approved samples (default 20 x 10,000) into one Parquet dataset,
// against the JSONL (openai) export of the same records, each in a fresh process with its peak RSS.
// FLEET_BENCH_WORKSPACES and FLEET_BENCH_SAMPLES override the sizes.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchSection } from '../index';
import { fmt, peakRss } from '../util';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { exportDataset } from '../../src/core/dataset';
import { fleetExport } from '../../src/core/fleet/fleet';

const WORKSPACES = Number(process.env.FLEET_BENCH_WORKSPACES ?? 20);
const SAMPLES = Number(process.env.FLEET_BENCH_SAMPLES ?? 10_000);
const TOPICS = ['green tea', 'morning check-ins', 'the Falcon release', 'pnpm', 'dark mode', '周报格式', '上海的办公室', 'vim keybindings'];

/** Approved, privacy-checked gate samples with distinct texts, inserted directly: the bench measures export, not collection. */
function buildWorkspace(dir: string, agent: number, n: number): void {
  fs.mkdirSync(dir, { recursive: true });
  const { db } = openWorkspaceDatabase(dir);
  const sessions = Math.max(1, Math.floor(n / 25));
  const base = Date.UTC(2026, 0, 1);
  const session = db.prepare(`INSERT INTO sessions (id, channel_id, created_at, last_activity_at) VALUES (?, 'bench', ?, ?)`);
  const sample = db.prepare(
    `INSERT INTO dataset_samples (id, sample_type, session_id, content, quality_score, annotation_status, privacy_checked, source_key, created_at)
     VALUES (?, 'memory_gate_positive', ?, ?, 0.9, 'approved', 1, ?, ?)`,
  );
  db.transaction(() => {
    for (let s = 0; s < sessions; s++) session.run(`channel:bench:${agent}:${s}`, base, base);
    for (let i = 0; i < n; i++) {
      const topic = TOPICS[i % TOPICS.length];
      const content = {
        type: 'memory_gate_positive',
        conversation: [
          { role: 'user', message: `Agent ${agent}, note ${i}: I care about ${topic}, variant ${i % 97}.` },
          { role: 'agent', message: `Understood about ${topic} (${i}).` },
        ],
        correctDecision: 'UPDATE_USER',
        correctFact: `User cares about ${topic} (${agent}/${i})`,
        reason: `Stable preference about ${topic}.`,
        evidence: { wasWritten: true },
      };
      sample.run(
        `s-${agent}-${i}`,
        `channel:bench:${agent}:${i % sessions}`,
        JSON.stringify(content),
        `bench:${agent}:${i}`,
        base + i * 1000,
      );
    }
  })();
  db.close();
}

interface ChildResult {
  seconds: number;
  cpu: number;
  peakRss: number;
  rows: number;
}

async function childMain(kind: string, root: string, out: string): Promise<void> {
  const peak = peakRss();
  const t = performance.now();
  const c = process.cpuUsage();
  let rows = 0;
  if (kind === 'fleet') {
    rows = (await fleetExport({ root, outDir: out })).added;
  } else {
    for (const ws of fs.readdirSync(root).sort()) {
      const dir = path.join(root, ws);
      const { db } = openWorkspaceDatabase(dir);
      try {
        rows += (await exportDataset({ db, workspaceDir: dir }, { format: 'openai', outDir: path.join(out, ws) })).total;
      } finally {
        db.close();
      }
    }
  }
  const u = process.cpuUsage(c);
  const result: ChildResult = { seconds: (performance.now() - t) / 1000, cpu: (u.user + u.system) / 1e6, peakRss: peak.stop(), rows };
  process.send!(result, () => process.exit(0));
}

function inChild(kind: 'fleet' | 'jsonl', root: string, out: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, [kind, root, out], {
      execArgv: ['--require', 'tsx/cjs'],
      env: { ...process.env, REFLECTION_BENCH_FLEET_CHILD: '1' },
    });
    child.once('message', (m) => resolve(m as ChildResult));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`${kind} child exited with ${code}`)));
  });
}

if (process.env.REFLECTION_BENCH_FLEET_CHILD && process.send) {
  void childMain(process.argv[2]!, process.argv[3]!, process.argv[4]!);
}

export const section: BenchSection = {
  name: `fleet: ${WORKSPACES} workspaces x ${SAMPLES} samples to Parquet`,
  async run() {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-bench-fleet-'));
    try {
      const root = path.join(tmp, 'agents');
      const t0 = performance.now();
      for (let a = 0; a < WORKSPACES; a++) buildWorkspace(path.join(root, `agent-${String(a).padStart(2, '0')}`), a, SAMPLES);
      console.log(
        `built ${WORKSPACES} workspaces in ${fmt((performance.now() - t0) / 1000, 1)} s; load average ${os
          .loadavg()
          .map((l) => fmt(l, 2))
          .join(' ')}`,
      );
      const jsonl = await inChild('jsonl', root, path.join(tmp, 'jsonl'));
      const fleet = await inChild('fleet', root, path.join(tmp, 'fleet'));
      const bytes = (dir: string): number =>
        fs
          .readdirSync(dir, { recursive: true, withFileTypes: true })
          .reduce((n, e) => n + (e.isFile() ? fs.statSync(path.join(e.parentPath, e.name)).size : 0), 0);
      console.log(
        `JSONL (openai) export of the same records, one per workspace: ${jsonl.rows} rows, ${fmt(jsonl.rows / jsonl.seconds, 0)} rows/s, cpu ${fmt(jsonl.cpu, 1)} s, peak RSS ${fmt(jsonl.peakRss, 0)} MB, ${fmt(bytes(path.join(tmp, 'jsonl')) / 2 ** 20, 1)} MB on disk`,
      );
      console.log(
        `fleet export (Parquet, one run): ${fleet.rows} rows, ${fmt(fleet.rows / fleet.seconds, 0)} rows/s, cpu ${fmt(fleet.cpu, 1)} s, peak RSS ${fmt(fleet.peakRss, 0)} MB (aim < 300), ${fmt(bytes(path.join(tmp, 'fleet')) / 2 ** 20, 1)} MB on disk`,
      );
      console.log(
        `throughput ratio fleet / JSONL: ${fmt(jsonl.seconds / fleet.seconds, 2)} (wall), ${fmt(jsonl.cpu / fleet.cpu, 2)} (cpu); load average ${os
          .loadavg()
          .map((l) => fmt(l, 2))
          .join(' ')}`,
      );
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  },
};
