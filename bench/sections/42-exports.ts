// Dataset exports at scale (issue 16). A workspace of EXPORT_BENCH_DECISIONS decisions (default 100,000)
// is recorded and collected, then every format is exported in fresh processes: CPU time against a plain
// JSON.stringify-and-write loop over the stored sample rows (scaled to the samples each export wrote), peak
// RSS (the kernel's high-water mark of that process), the live heap after a GC at each tenth, and whether
// token totals were counted or estimated. Both sides of the ratio are medians of fresh-process runs, each
// measured on its first run: the baseline of BASELINE_REPEATS (measured again right before each format; once
// per section it moved between 1.3 and 2.6 s CPU on the same data as the load changed), the export of
// EXPORT_BENCH_REPEATS (default 3; one run's noise went straight into its ratio, and ranking's single runs
// spread 0.56-1.12). Each run's CPU is printed beside the median; the live heap comes from one more run of
// its own (its forced collections cost the timed runs about 3%), peak RSS is the largest of all the runs,
// and the other figures are the median run's. Processes of their own keep the export's peak RSS its own.
// EXPORT_BENCH_WORKSPACE=<dir> reuses a collected workspace (kept), so the code before and after a change can
// be measured on the same data; EXPORT_BENCH_FORMATS picks formats.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import type { BenchSection } from '../index';
import { cpuSeconds, fmt, liveHeapProbe, loadAvg, maxRssMb } from '../util';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { exportDataset } from '../../src/core/dataset';
import { EXPORT_FORMATS, type ExportFormat } from '../../src/shared/domain';
import { buildWorkspace } from '../dataset/workspace';
import { runChild, type CollectChildResult } from '../dataset/child';

interface ExportRun {
  format: string;
  total: number;
  wallS: number;
  cpuS: number;
  peakRssMb: number;
  liveHeapMb: number[];
  mib: number;
  /** exact: every example counted by the tokenizer; estimated: some were not; none: the format has no token report */
  tokens: 'exact' | 'estimated' | 'none';
  error?: string;
}

const CHILD_ENV = 'REFLECTION_BENCH_EXPORT_CHILD';
const BASELINE_REPEATS = 3;
const EXPORT_REPEATS = Math.max(1, Number(process.env.EXPORT_BENCH_REPEATS ?? 3) || 3);

/** The middle of `xs` (the mean of the two middle values when their number is even). */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The baseline: every stored sample row, JSON.stringify'd and written with backpressure. */
async function baselineWrite(dir: string): Promise<{ cpuS: number; rows: number }> {
  const { db } = openWorkspaceDatabase(dir);
  const file = path.join(dir, 'baseline-samples.jsonl');
  const c0 = process.cpuUsage();
  const out = fs.createWriteStream(file);
  let rows = 0;
  for (const row of db.prepare('SELECT * FROM dataset_samples').iterate()) {
    rows++;
    if (!out.write(`${JSON.stringify(row)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  const cpuS = cpuSeconds(c0);
  db.close();
  fs.rmSync(file, { force: true });
  return { cpuS, rows };
}

/**
 * One export in this (fresh) process. probe: take the live heap at each tenth. Its forced collections
 * leave background sweeping and recompiles in the timed section that subtracting the probe's own CPU
 * does not remove (ranking, 10 pairs: 0.690 s with it, 0.668 s without), so timed runs go without it.
 */
async function exportChild(dir: string, format: ExportFormat, probe: boolean): Promise<ExportRun> {
  const { db } = openWorkspaceDatabase(dir);
  const outDir = path.join(dir, `export-${format}`);
  const live = probe ? liveHeapProbe() : undefined;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = await exportDataset({ db, workspaceDir: dir, progress: live?.progress }, { format, outDir }).catch((e: Error) => e);
  const cpuS = cpuSeconds(c0) - (live?.cpuS() ?? 0);
  const wallS = (performance.now() - t0) / 1000;
  db.close();
  fs.rmSync(outDir, { recursive: true, force: true });
  const peakRssMb = maxRssMb();
  const base = { format, wallS, cpuS, peakRssMb, liveHeapMb: live?.samples ?? [] };
  if (r instanceof Error) return { ...base, tokens: 'none', total: 0, mib: 0, error: r.message };
  const t = r.summary.tokens as { estimated?: boolean } | null;
  const tokens = t === null ? 'none' : t.estimated ? 'estimated' : 'exact';
  return { ...base, tokens, total: r.total, mib: r.files.reduce((a, f) => a + f.bytes, 0) / 1048576 };
}

interface BaselineRuns {
  rows: number;
  /** CPU seconds of each run in one process: the first cold, as an export runs, the others warm. */
  runs: number[];
}

/** The baseline `repeats` times in this (fresh) process, and the rows it wrote. */
async function baselineChild(dir: string, repeats: number): Promise<BaselineRuns> {
  const runs: { cpuS: number; rows: number }[] = [];
  for (let i = 0; i < repeats; i++) runs.push(await baselineWrite(dir));
  return { rows: runs[0]!.rows, runs: runs.map((x) => x.cpuS) };
}

/**
 * The baseline an export is divided by: the median of BASELINE_REPEATS cold runs, each the first run of a
 * fresh process, as the export is (an export's first run compiles its code: about 0.25 s of CPU, which a
 * warm baseline did not pay, and which was half of ranking's ratio). The last process runs it twice more,
 * warm, and the fastest warm run is printed beside it, as the bench divided by before.
 */
async function measureBaseline(dir: string): Promise<{ cpuS: number; warmS: number; rows: number; cold: number[] }> {
  const children: BaselineRuns[] = [];
  for (let i = 0; i < BASELINE_REPEATS; i++)
    children.push(await runSectionChild<BaselineRuns>(dir, 'baseline', i === BASELINE_REPEATS - 1 ? 3 : 1));
  const cold = children.map((c) => c.runs[0]!);
  const cpuS = median(cold);
  return { cpuS, warmS: Math.min(...children[BASELINE_REPEATS - 1]!.runs.slice(1)), rows: children[0]!.rows, cold };
}

/**
 * The export of `format` in EXPORT_REPEATS fresh processes, summarized as the baseline is: the median CPU,
 * with every run's CPU; the other figures from the run nearest the median. One more process takes the live
 * heap (exportChild: why not in the timed runs); peak RSS is the largest of all of them. The first failed
 * run is returned as it is.
 */
async function measureExport(dir: string, format: ExportFormat): Promise<ExportRun & { runsCpuS: number[] }> {
  const runs: ExportRun[] = [];
  for (let i = 0; i <= EXPORT_REPEATS; i++) {
    const r = await runSectionChild<ExportRun>(dir, format, i === EXPORT_REPEATS ? 'probe' : 'timed');
    if (r.error) return { ...r, runsCpuS: [r.cpuS] };
    runs.push(r);
  }
  const probed = runs.pop()!; // pushed last, above
  const runsCpuS = runs.map((r) => r.cpuS);
  const cpuS = median(runsCpuS);
  const mid = runs.reduce((a, r) => (Math.abs(r.cpuS - cpuS) < Math.abs(a.cpuS - cpuS) ? r : a));
  const peakRssMb = Math.max(probed.peakRssMb, ...runs.map((r) => r.peakRssMb));
  return { ...mid, cpuS, peakRssMb, liveHeapMb: probed.liveHeapMb, runsCpuS };
}

/** A fresh child: `<dir> <format> timed|probe` exports, `<dir> baseline <repeats>` measures the baseline. */
function runSectionChild<T>(dir: string, what: ExportFormat | 'baseline', arg: number | 'timed' | 'probe'): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, [dir, what, String(arg)], {
      execArgv: ['--require', 'tsx/cjs'],
      env: { ...process.env, [CHILD_ENV]: '1' },
    });
    child.once('message', (m) => resolve(m as T));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`export bench child exited with ${code}`)));
  });
}

async function collectedWorkspace(root: string): Promise<string> {
  if (process.env.EXPORT_BENCH_WORKSPACE) {
    const dir = process.env.EXPORT_BENCH_WORKSPACE;
    if (fs.existsSync(path.join(dir, '.openclaw-reflection'))) return dir;
    fs.mkdirSync(dir, { recursive: true });
    return collectInto(dir);
  }
  return collectInto(fs.mkdtempSync(path.join(root, 'ws-')));
}

async function collectInto(dir: string): Promise<string> {
  const n = Number(process.env.EXPORT_BENCH_DECISIONS ?? 100_000);
  const tb = performance.now();
  buildWorkspace(dir, n).close();
  const c = await runChild<CollectChildResult>(['collect', dir]);
  console.log(
    `workspace: ${n.toLocaleString('en')} decisions -> ${c.samples} samples in ${fmt((performance.now() - tb) / 1000, 0)} s; ${loadAvg()}`,
  );
  return dir;
}

export const section: BenchSection = {
  name: 'dataset exports',
  async run() {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-bench-exports-'));
    try {
      const dir = await collectedWorkspace(root);
      const formats = (process.env.EXPORT_BENCH_FORMATS?.split(',') ?? [...EXPORT_FORMATS]) as ExportFormat[];
      for (const format of formats) {
        const base = await measureBaseline(dir);
        console.log(
          `export baseline (stringify + write of all ${base.rows} stored samples, median of ${BASELINE_REPEATS} fresh processes, ` +
            `${base.cold.map((x) => fmt(x, 2)).join(' / ')} s CPU): ${fmt(base.cpuS, 2)} s CPU; warm in-process, fastest: ${fmt(base.warmS, 2)} s; ${loadAvg()}`,
        );
        const r = await measureExport(dir, format);
        if (r.error) {
          console.log(`export ${format.padEnd(10)}: ${r.error}`);
          continue;
        }
        // the baseline writes every stored sample; scale it to the number this export wrote
        const share = Math.max(r.total, 1) / Math.max(1, base.rows);
        const scaled = base.cpuS * share;
        const aim = format === 'openai-dpo' ? 0.5 : 0.7;
        console.log(
          `export ${format.padEnd(10)}: ${r.total} samples, median of ${r.runsCpuS.length} fresh processes ` +
            `(${r.runsCpuS.map((x) => fmt(x, 2)).join(' / ')} s CPU): ${fmt(r.cpuS, 2)} s CPU (wall of the median run ${fmt(r.wallS, 2)} s); ratio ${fmt(scaled / r.cpuS, 3)} (aim >= ${aim}; ` +
            `${fmt((base.warmS * share) / r.cpuS, 3)} against the warm baseline); ` +
            `peak RSS ${fmt(r.peakRssMb, 0)} MB, largest fresh process (aim < 250); live heap after GC at each tenth (MB): ${r.liveHeapMb.join(' ')}; ` +
            `tokens ${r.tokens}; ${fmt(r.mib, 1)} MiB written; ${loadAvg()}`,
        );
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
};

if (process.env[CHILD_ENV] && process.send) {
  const [dir, format, arg] = process.argv.slice(2);
  if (!dir) throw new Error('exports bench child: expected <workspace dir> <format> timed|probe, or <workspace dir> baseline <repeats>');
  (format === 'baseline' ? baselineChild(dir, Number(arg ?? 1)) : exportChild(dir, format as ExportFormat, arg === 'probe')).then(
    (result) => process.send!(result, () => process.exit(0)),
    (e: Error) => {
      console.error(e);
      process.exit(1);
    },
  );
}
