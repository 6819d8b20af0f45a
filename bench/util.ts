// Small helpers shared by benchmark sections.
import fs from 'node:fs';
import os from 'node:os';
import { fullCollection } from '../src/core/dataset/heapCeiling';

export function percentile(samples: number[], p: number): number {
  if (!samples.length) return NaN;
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export function timeIt<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

/** Tracks the peak resident set size while a benchmark runs. */
export function peakRss(): { stop: () => number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss) / (1024 * 1024);
    },
  };
}

export const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** The 1, 5 and 15 minute load averages: every figure is printed with it (the machine may be shared). */
export function loadAvg(): string {
  return `load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}

/** Bytes this process has passed to write() so far (Linux /proc/self/io wchar); null elsewhere. */
export function writtenBytes(): number | null {
  try {
    const m = /^wchar:\s*(\d+)/m.exec(fs.readFileSync('/proc/self/io', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) used since `since`. */
export function cpuSeconds(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}

/** Peak resident set of this whole process (the kernel's high-water mark), in MiB. */
export const maxRssMb = (): number => process.resourceUsage().maxRSS / 1024;

/** Live heap after a full GC at each tenth of the work: flat numbers mean memory does not grow with the data. */
export function liveHeapProbe(): { progress: (done: number, total: number | null) => void; samples: number[]; cpuS: () => number } {
  const gc = fullCollection();
  const samples: number[] = [];
  let next = 0.1;
  // the forced collections are the probe's, not the measured job's: callers subtract them from its CPU time
  let probeCpuS = 0;
  return {
    samples,
    cpuS: () => probeCpuS,
    progress: (done, total) => {
      if (!total || done / total < next) return;
      next += 0.1;
      const c0 = process.cpuUsage();
      gc();
      samples.push(Math.round(process.memoryUsage().heapUsed / 1048576));
      probeCpuS += cpuSeconds(c0);
    },
  };
}
