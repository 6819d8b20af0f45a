// `npm run bench`: runs every section in bench/sections (or only those named on the command line).
// Each section prints its own numbers, as ratios against a raw baseline measured in the same run.
// Benchmarks never assert on time; they report.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadAvg } from './util';

export interface BenchSection {
  name: string;
  run: () => Promise<void> | void;
}

async function main() {
  const only = process.argv.slice(2);
  const dir = path.join(__dirname, 'sections');
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  for (const f of files) {
    const mod = (await import(path.join(dir, f))) as { section?: BenchSection };
    if (!mod.section) continue;
    if (only.length && !only.some((o) => f.includes(o) || mod.section!.name.includes(o))) continue;
    console.log(`\n## ${mod.section.name} (${loadAvg()}, ${os.cpus().length} CPUs)`);
    const t0 = performance.now();
    await mod.section.run();
    console.log(`(section took ${((performance.now() - t0) / 1000).toFixed(1)} s; ${loadAvg()})`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
