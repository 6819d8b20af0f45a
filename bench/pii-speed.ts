// `npx tsx bench/pii-speed.ts [decisions] [repeats] [detector module]`: CPU time of detectPii over the texts
// dataset collection scans, with collection's options. The texts are the text fields of the samples a bench
// workspace collects (bench/dataset/workspace.ts), walked as scanContent walks them. A detector module path
// (exporting detectPii, e.g. a copy of an older src/core/pii) is timed over the same texts, the two taking turns.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildWorkspace } from './dataset/workspace';
import { fmt, loadAvg } from './util';
import { collectSamples } from '../src/core/dataset';
import { DEFAULT_REDACT_PATTERNS } from '../src/core/dataset/config';
import { collectionTexts } from './pii-texts';
import { detectPii as current, type DetectOptions, type PiiSpan } from '../src/core/pii/index';

type Detect = (text: string, opts?: DetectOptions) => PiiSpan[];

async function corpus(n: number): Promise<{ all: string[]; distinct: string[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-bench-pii-'));
  try {
    const db = buildWorkspace(dir, n);
    await collectSamples({ db, workspaceDir: dir }, { autoApprove: true });
    const all = collectionTexts(db);
    db.close();
    return { all, distinct: [...new Set(all)] };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function cpuMicros(detect: Detect, texts: string[], opts: DetectOptions): { us: number; spans: number } {
  let spans = 0;
  const t0 = process.cpuUsage();
  for (const t of texts) spans += detect(t, opts).length;
  const d = process.cpuUsage(t0);
  return { us: d.user + d.system, spans };
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 3000);
  const repeats = Number(process.argv[3] ?? 5);
  const other = process.argv[4];
  const detectors: [string, Detect][] = [['current', current]];
  if (other) detectors.unshift([other, ((await import(path.resolve(other))) as { detectPii: Detect }).detectPii]);
  const { all, distinct } = await corpus(n);
  const opts: DetectOptions = { names: false, redactPatterns: DEFAULT_REDACT_PATTERNS };
  console.log(`${n} decisions: ${all.length} texts scanned, ${distinct.length} distinct; ${loadAvg()}`);
  const runs = detectors.map(() => [] as number[]);
  const spans = detectors.map(() => 0);
  detectors.forEach(([, detect]) => cpuMicros(detect, distinct, opts)); // warm-up: compile the regexes, load libphonenumber's metadata
  // alternate the detectors so both see the same load
  for (let r = 0; r < repeats; r++) {
    detectors.forEach(([, detect], i) => {
      const m = cpuMicros(detect, distinct, opts);
      runs[i]!.push(m.us);
      spans[i] = m.spans;
    });
  }
  detectors.forEach(([name], i) => {
    const sorted = [...runs[i]!].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!; // repeats >= 1
    console.log(
      `${name}: ${spans[i]} spans; detectPii CPU per distinct text ${fmt(median / distinct.length)} µs ` +
        `(median of ${repeats}, min ${fmt(sorted[0]! / distinct.length)}), per decision ${fmt(median / n)} µs`,
    );
  });
  console.log(loadAvg());
}

void main();
