// Dataset curation at scale (issue 16). For each size N (DATASET_BENCH_SIZES, default "10000,100000,300000",
// which takes about half an hour on 2 shared cores; DATASET_BENCH_DECISIONS=N runs one size; 1,000,000 is
// the issue's size and runs when asked for, in about an hour), a workspace of N decisions is collected in a fresh process:
// CPU µs per decision against the floor measured in the same process (one keyset join over the same
// decisions plus the produced sample rows inserted into a primary-key-only table in transactions of
// 5,000), write amplification (/proc/self/io wchar over database growth), peak RSS and the live heap.
// The series prints the trend per decision. The export figures are in 42-exports.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchSection } from '../index';
import { fmt, loadAvg } from '../util';
import { NEAR_DUP_PAIRS, pairScores, runNearDupPairs } from '../../tests/dataset/nearDupPairs';
import { buildWorkspace } from '../dataset/workspace';
import { runChild, type CollectChildResult } from '../dataset/child';

function benchSizes(): number[] {
  if (process.env.DATASET_BENCH_DECISIONS) return [Number(process.env.DATASET_BENCH_DECISIONS)];
  return (process.env.DATASET_BENCH_SIZES ?? '10000,100000,300000')
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
}

function printCollect(n: number, r: CollectChildResult): void {
  const us = (s: number) => (s * 1e6) / Math.max(1, r.decisions);
  const amp = r.wchar === null ? null : r.wchar / Math.max(1, r.growth);
  console.log(
    `collect ${n.toLocaleString('en')}: ${r.decisions} decisions -> ${r.samples} samples (${r.duplicates} clustered); ` +
      `CPU ${fmt(us(r.cpuS), 0)} µs/decision (wall ${fmt(r.wallS, 1)} s = ${fmt(r.decisions / r.wallS, 0)} decisions/s); ` +
      `floor ${fmt(us(r.floor.cpuS), 0)} µs/decision (read join ${fmt(us(r.floor.readCpuS), 0)}, PK-only insert of ${r.floor.rows} rows ${fmt(us(r.floor.insertCpuS), 0)}); ` +
      `ratio ${fmt(r.floor.cpuS / r.cpuS, 3)} (aim >= 0.2); ${loadAvg()}`,
  );
  console.log(
    `  write amplification ${amp === null ? 'n/a' : `${fmt(amp, 1)}x`} (${fmt((r.wchar ?? NaN) / 1048576, 0)} MiB written / ` +
      `${fmt(r.growth / 1048576, 0)} MiB database growth; aim <= 3x; floor wrote ${fmt((r.floor.wchar ?? NaN) / 1048576, 0)} MiB); ` +
      `peak RSS ${fmt(r.peakRssMb, 0)} MB in a fresh process (aim < 250); live heap after GC at each tenth (MB): ${r.liveHeapMb.join(' ')}`,
  );
}

export const section: BenchSection = {
  name: 'dataset: collect and export',
  async run() {
    const sizes = benchSizes();
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-bench-dataset-'));
    try {
      // dedupe quality first: the labelled pair set (tests/dataset/nearDupPairs.ts), through the real collector
      const pairs = pairScores(await runNearDupPairs(fs.mkdtempSync(path.join(root, 'pairs-'))));
      const nDistinct = NEAR_DUP_PAIRS.filter((p) => !p.same).length;
      console.log(
        `near-duplicate pairs: ${NEAR_DUP_PAIRS.length} (${nDistinct} distinct facts from consecutive turns, ${NEAR_DUP_PAIRS.length - nDistinct} copies of one lesson); ` +
          `pair precision ${fmt(pairs.precision, 3)}, recall ${fmt(pairs.recall, 3)} (tp ${pairs.tp}, fp ${pairs.fp}, fn ${pairs.fn}, tn ${pairs.tn})`,
      );
      const series: { n: number; us: number; ratio: number }[] = [];
      let largest = '';
      for (const n of sizes) {
        const dir = path.join(root, `ws-${n}`);
        fs.mkdirSync(dir);
        const tb = performance.now();
        buildWorkspace(dir, n).close();
        console.log(
          `workspace: ${n.toLocaleString('en')} decisions recorded in ${fmt((performance.now() - tb) / 1000, 1)} s; ${loadAvg()}`,
        );
        const r = await runChild<CollectChildResult>(['collect', dir]);
        printCollect(n, r);
        series.push({ n, us: (r.cpuS * 1e6) / Math.max(1, r.decisions), ratio: r.floor.cpuS / r.cpuS });
        if (largest) fs.rmSync(largest, { recursive: true, force: true });
        largest = dir;
      }
      const first = series[0]!; // the series has one entry per size, at least one
      console.log(
        `collect trend (CPU µs/decision, x the smallest size; aim within 1.2x): ` +
          series
            .map((s) => `${s.n.toLocaleString('en')}: ${fmt(s.us, 0)} (${fmt(s.us / first.us, 2)}x, ratio ${fmt(s.ratio, 3)})`)
            .join('; '),
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
};
