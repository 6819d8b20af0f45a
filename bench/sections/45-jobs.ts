// Responsiveness while a long job runs (issue 16): a collection of N decisions (JOBS_BENCH_DECISIONS,
// default 100,000) is started through the registry, as the UI starts it, while main answers a
// gate.list page every 100 ms, a curator's write (naming the local curator) every second, and live
// capture imports a plugin writing 20 decisions/s. Printed: the gate.list p95 (aim < 50 ms), the
// curator write's p95, longest wait and failures, and live capture's log-line-to-row p95 (aim < 1 s),
// first with the job on main's connection (REFLECTION_JOBS_IN_PROCESS=1, the old way), then in a
// worker thread; a reference phase without a job shows what live capture and the list cost on this
// machine at this moment.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { BenchSection } from '../index';
import { fmt, loadAvg, percentile } from '../util';
import { createAppRuntime } from '../../src/api/runtime';
import { dbPathFor } from '../../src/core/db/connection';
import { startLiveCapture } from '../../src/core/lifecycle/live';
import { buildWorkspace } from '../dataset/workspace';

const N = Number(process.env.JOBS_BENCH_DECISIONS ?? 100_000);
const PLUGIN_RATE = 20;
/** How long the reference phase (live capture and list calls, no job) runs. */
const REFERENCE_MS = 15_000;
type Mode = 'none' | 'main' | 'worker';
const MODE_LABEL: Record<Mode, string> = { none: 'no job (reference)  ', main: 'job on main (before)', worker: 'job in a worker     ' };
const standIn = path.join(__dirname, '..', '..', 'tests', 'lifecycle', 'helpers', 'pluginStandIn.cjs');

interface Phase {
  jobS: number;
  listMs: number[];
  /** A curator's write on main, each second of the phase: how long it took, and how many failed. */
  writeMs: number[];
  writeFailures: string[];
  lagMs: number[];
  state: string;
  /** Share of the phase main's event loop was busy (1 = never idle): what the job left it. */
  mainBusy: number;
}

async function phase(dir: string, mode: Mode): Promise<Phase> {
  const inProcess = mode === 'main';
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-bench-jobs-state-'));
  const previous = process.env.REFLECTION_JOBS_IN_PROCESS;
  process.env.REFLECTION_JOBS_IN_PROCESS = inProcess ? '1' : '0';
  const rt = createAppRuntime({ mode: 'web', stateDir, log: { warn: () => undefined } });
  rt.session.open(dir);
  const pluginRoot = path.join(dir, 'plugin');
  fs.mkdirSync(path.join(pluginRoot, 'logs'), { recursive: true });
  const capture = startLiveCapture(rt.session.serviceContext(), { pluginRoot });
  const reader = new Database(dbPathFor(dir), { readonly: true });
  const lastSeq = reader.prepare('SELECT coalesce(max(seq), 0) FROM memory_gate_decisions').pluck();
  let seq = lastSeq.get() as number;
  const fresh = reader.prepare('SELECT seq, created_at FROM memory_gate_decisions WHERE seq > ? ORDER BY seq');
  const lagMs: number[] = [];
  const listMs: number[] = [];
  const cfgFile = path.join(dir, 'stand-in.json');
  fs.writeFileSync(cfgFile, JSON.stringify({ pluginRoot, workspace: dir, turns: 100_000, ratePerSecond: PLUGIN_RATE }));
  const plugin = spawn(process.execPath, [standIn, cfgFile], { stdio: ['ignore', 'ignore', 'ignore'] });
  const probe = setInterval(() => {
    const now = Date.now();
    for (const r of fresh.all(seq) as { seq: number; created_at: number }[]) {
      lagMs.push(now - r.created_at);
      seq = r.seq;
    }
  }, 10);
  const t0 = performance.now();
  const elu0 = performance.eventLoopUtilization();
  let jobId: string | null = null;
  if (mode !== 'none') {
    const started = await rt.registry.dispatch('dataset.collect', { autoApprove: true });
    if (!started.ok) throw new Error(started.error.message);
    jobId = (started.value as { jobId: string }).jobId;
  }
  const stillGoing = () => (jobId ? rt.jobs.get(jobId).state === 'running' : performance.now() - t0 < REFERENCE_MS);
  const writeMs: number[] = [];
  const writeFailures: string[] = [];
  const curatorWrites = (async () => {
    for (let k = 0; stillGoing(); k++) {
      const t = performance.now();
      const r = await rt.registry.dispatch('curators.setLocalName', { name: `bench ${k % 2}` });
      writeMs.push(performance.now() - t);
      if (!r.ok) writeFailures.push(`${r.error.kind}: ${r.error.message}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  while (stillGoing()) {
    const t = performance.now();
    await rt.registry.dispatch('gate.list', { limit: 50 });
    listMs.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 100));
  }
  const jobS = (performance.now() - t0) / 1000;
  await curatorWrites;
  const mainBusy = performance.eventLoopUtilization(elu0).utilization;
  plugin.kill();
  clearInterval(probe);
  await capture.stop();
  reader.close();
  await rt.close();
  process.env.REFLECTION_JOBS_IN_PROCESS = previous;
  fs.rmSync(stateDir, { recursive: true, force: true });
  const job = jobId ? rt.jobs.get(jobId) : null;
  return {
    jobS,
    mainBusy,
    listMs,
    writeMs,
    writeFailures,
    lagMs,
    state: job ? `${job.state}${job.error ? ` (${job.error.kind}: ${job.error.message})` : ''}` : 'none',
  };
}

export const section: BenchSection = {
  name: `jobs: main's responsiveness while ${N.toLocaleString('en')} decisions are collected`,
  async run() {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-bench-jobs-'));
    try {
      const template = path.join(root, 'template');
      fs.mkdirSync(template);
      const db = buildWorkspace(template, N);
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      for (const mode of (process.env.JOBS_BENCH_MODES ?? 'none,main,worker').split(',') as Mode[]) {
        const dir = path.join(root, mode);
        fs.cpSync(template, dir, { recursive: true });
        const p = await phase(dir, mode);
        console.log(
          `${MODE_LABEL[mode]}: ${mode === 'none' ? '' : `collect ${p.state} in `}${fmt(p.jobS, 1)} s; ` +
            `gate.list p50 ${fmt(percentile(p.listMs, 50), 0)} ms, p95 ${fmt(percentile(p.listMs, 95), 0)} ms (n=${p.listMs.length}, aim p95 < 50); ` +
            `curator write p95 ${fmt(percentile(p.writeMs, 95), 0)} ms, longest ${fmt(percentile(p.writeMs, 100), 0)} ms, ` +
            `${p.writeFailures.length} of ${p.writeMs.length} failed${p.writeFailures.length ? ` (${[...new Set(p.writeFailures)].join('; ')})` : ''}; ` +
            `live capture line -> row p50 ${fmt(percentile(p.lagMs, 50), 0)} ms, p95 ${fmt(percentile(p.lagMs, 95), 0)} ms, longest ${fmt(percentile(p.lagMs, 100), 0)} ms (n=${p.lagMs.length}, aim p95 < 1000); ` +
            `main's event loop busy ${fmt(p.mainBusy * 100, 0)}%; ${loadAvg()}`,
        );
        fs.rmSync(dir, { recursive: true, force: true });
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
};
