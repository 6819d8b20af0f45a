// Memory health: blame on a file with 10,000 recorded versions (stored per-version line maps vs
// re-diffing the whole history), and the contradiction/duplicate finder's precision and recall on
// the labelled EN/ZH pair set. Sizes: HEALTH_BENCH_VERSIONS (default 10000).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchSection } from '../index';
import { fmt, percentile, timeIt } from '../util';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { RecorderCore } from '../../src/core/recorder/recorder';
import type { ServiceContext } from '../../src/core/context';
import { blameFile, ensureLineMaps } from '../../src/core/health/blame';
import { emptyMap, nextLineMap, splitLines } from '../../src/core/health/lineMap';
import { verifyChains } from '../../src/core/health/verify';
import { sha256 } from '../../src/core/text/diff';
import { evaluateConflictPairs } from '../../tests/health/conflictEval';

const VERSIONS = Number(process.env.HEALTH_BENCH_VERSIONS ?? 10_000);
const ROUNDS = 20;

function buildHistory(ctx: ServiceContext): void {
  const core = new RecorderCore(ctx.db);
  let t = 1_700_000_000_000;
  let lines = Array.from({ length: 150 }, (_, i) => `- fact ${i}: the user mentioned something worth keeping (${i})`);
  let before: string | null = null;
  let next = 150;
  core.batch(() => {
    for (let v = 0; v < VERSIONS; v++) {
      const at = (v * 7919) % lines.length;
      const op = v % 5;
      if (op === 0 || lines.length < 100) lines.splice(at, 0, `- fact ${next++}: added in version ${v}`);
      else if (op === 1) lines.splice(at, 1);
      else if (op === 2) lines[at] = `${(lines[at] ?? '').replace(/ \(v\d+\)$/, '')} (v${v})`;
      else if (op === 3) lines.splice((at + 40) % lines.length, 0, ...lines.splice(at, 1));
      else lines[at] = `- fact ${next++}: rewritten in version ${v}`;
      if (lines.length > 220) lines = lines.slice(0, 150);
      const after = `${lines.join('\n')}\n`;
      core.recordWrite({ targetFile: 'USER.md', before, after, status: 'written', source: 'retry', createdAt: ++t });
      before = after;
    }
  });
  fs.writeFileSync(path.join(ctx.workspaceDir, 'USER.md'), before ?? '');
}

function blameBench(): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-health-'));
  const { db } = openWorkspaceDatabase(dir);
  const ctx: ServiceContext = { db, workspaceDir: dir };
  const built = timeIt(() => buildHistory(ctx));
  console.log(`history: ${VERSIONS} versions of USER.md recorded in ${fmt(built.ms / 1000, 1)} s (chained as they were recorded)`);
  const first = timeIt(() => ensureLineMaps(db, 'USER.md'));
  console.log(`line maps for all ${first.value} versions, computed once and stored: ${fmt(first.ms)} ms`);

  // Raw floor: read the newest version's content and split it into lines.
  const raw: number[] = [];
  const blame: number[] = [];
  const line: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    raw.push(
      timeIt(() =>
        splitLines(
          db
            .prepare(
              "SELECT s.content FROM memory_versions v JOIN write_guardian_audit a ON a.id = v.audit_id JOIN file_snapshots s ON s.id = a.after_snapshot_id WHERE v.file_name = 'USER.md' ORDER BY v.seq DESC LIMIT 1",
            )
            .pluck()
            .get() as string,
        ),
      ).ms,
    );
    blame.push(timeIt(() => blameFile(ctx, { file: 'USER.md' })).ms);
    line.push(timeIt(() => blameFile(ctx, { file: 'USER.md', line: 40 })).ms);
  }
  const floor = percentile(raw, 50);
  const p50 = percentile(blame, 50);
  console.log(
    `blame of the whole file (${VERSIONS} versions): p50 ${fmt(p50)} ms, p95 ${fmt(percentile(blame, 95))} ms — ${p50 < 50 ? 'under' : 'OVER'} the 50 ms target (${fmt(p50 / floor, 1)}x the raw read of ${fmt(floor)} ms)`,
  );
  console.log(`blame of one line with its history: p50 ${fmt(percentile(line, 50))} ms`);

  // What a view would cost without stored maps: re-diff the whole history.
  const contents = db
    .prepare(
      "SELECT s.content FROM memory_versions v JOIN write_guardian_audit a ON a.id = v.audit_id JOIN file_snapshots s ON s.id = a.after_snapshot_id WHERE v.file_name = 'USER.md' ORDER BY v.seq",
    )
    .pluck()
    .all() as string[];
  const replay = timeIt(() => {
    let prev: string[] = [];
    let map = emptyMap();
    contents.forEach((c, i) => {
      const lines = splitLines(c);
      map = nextLineMap(prev, map, lines, i + 1).map;
      prev = lines;
    });
  });
  console.log(
    `re-diffing the whole history instead (no stored maps): ${fmt(replay.ms)} ms (${fmt(replay.ms / p50, 0)}x a stored-map blame)`,
  );
  const verify = timeIt(() => verifyChains(ctx, { disk: false }));
  const hashed = timeIt(() => contents.forEach((c) => sha256(c)));
  console.log(
    `verify of the ${VERSIONS}-version chain (re-hashes every version): ${fmt(verify.ms)} ms, ${verify.value.ok ? 'ok' : 'BROKEN'} (${fmt(verify.ms / hashed.ms, 1)}x hashing the contents alone, ${fmt(hashed.ms)} ms)`,
  );
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

function conflictBench(): void {
  const r = evaluateConflictPairs();
  console.log(`labelled pairs: ${r.pairs} (${r.en} English, ${r.zh} Chinese)`);
  for (const s of r.scores)
    console.log(`${s.label}: precision ${fmt(s.precision, 3)}, recall ${fmt(s.recall, 3)} (tp ${s.tp}, fp ${s.fp}, fn ${s.fn})`);
  for (const m of r.misses) console.log(`  miss: ${m}`);
}

export const section: BenchSection = {
  name: 'memory health',
  run() {
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => fmt(l, 2))
        .join(' ')}`,
    );
    blameBench();
    conflictBench();
  },
};
