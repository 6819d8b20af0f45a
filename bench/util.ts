// Small helpers shared by benchmark sections.
export function percentile(samples: number[], p: number): number {
  if (!samples.length) return NaN;
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

export function timeIt<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

/** Tracks the peak resident set size while a benchmark runs. */
export function peakRss(): { stop: () => number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
  return { stop: () => { clearInterval(timer); return Math.max(peak, process.memoryUsage().rss) / (1024 * 1024); } };
}

export const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
