// write_guardian: a rollback on a 10,000-line file (restore and reverse-patch paths) and
// `guardian history` for a file with 10,000 versions, against raw baselines from the same run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchSection } from '../index';
import { fmt, percentile, timeIt } from '../util';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { RecorderCore } from '../../src/core/recorder/recorder';
import { writeInput } from '../../src/core/recorder/schemas';
import type { ServiceContext } from '../../src/core/context';
import { fileHistory } from '../../src/core/guardian/queries';
import { rollbackWrite } from '../../src/core/guardian/rollback';
import { recordExternalChanges } from '../../src/core/guardian/external';

const LINES = 10_000;
const VERSIONS = 10_000;
const ROUNDS = 15;

function report(label: string, samples: number[], baseline: number): void {
  const p50 = percentile(samples, 50);
  console.log(
    `${label}: p50 ${fmt(p50)} ms, p95 ${fmt(percentile(samples, 95))} ms (${fmt(p50 / baseline, 1)}x the raw baseline of ${fmt(baseline)} ms)`,
  );
}

async function rollbackBench(dir: string): Promise<void> {
  const { db } = openWorkspaceDatabase(dir);
  const core = new RecorderCore(db);
  let t = 1_700_000_000_000;
  const ctx: ServiceContext = { db, workspaceDir: dir, now: () => ++t, actor: 'bench' };
  const file = path.join(dir, 'USER.md');
  const base = Array.from({ length: LINES }, (_, i) => `- line ${i}: the user said something worth keeping, number ${i}\n`).join('');
  fs.writeFileSync(file, `# User\n${base}`);
  recordExternalChanges(ctx);
  const write = (after: string) => {
    const before = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, after);
    return core.recordWrite({ targetFile: 'USER.md', before, after, status: 'written', source: 'retry', createdAt: ++t }).auditId;
  };

  const raw: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const content = fs.readFileSync(file, 'utf8');
    raw.push(
      timeIt(() => {
        fs.writeFileSync(`${file}.raw`, content);
        fs.readFileSync(`${file}.raw`, 'utf8');
      }).ms,
    );
  }
  fs.rmSync(`${file}.raw`);
  const baseline = percentile(raw, 50);

  const restore: number[] = [];
  const reverse: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const current = fs.readFileSync(file, 'utf8');
    const lines = current.split('\n');
    lines.splice(5000, 1, `- line 4999b: corrected in round ${i}`);
    const id = write(lines.join('\n'));
    let t0 = performance.now();
    await rollbackWrite(ctx, { auditId: id });
    restore.push(performance.now() - t0);

    // A write, then a later write elsewhere in the file: undoing the first reverse-applies its patch.
    const l2 = fs.readFileSync(file, 'utf8').split('\n');
    l2.splice(2000, 0, `- inserted in round ${i}`);
    const first = write(l2.join('\n'));
    const l3 = fs.readFileSync(file, 'utf8').split('\n');
    l3.splice(8000, 0, `- later write in round ${i}`);
    write(l3.join('\n'));
    t0 = performance.now();
    const r = await rollbackWrite(ctx, { auditId: first });
    reverse.push(performance.now() - t0);
    if (r.mode !== 'reverse_patch') throw new Error(`expected reverse_patch, got ${r.mode}`);
  }
  // A later write changed the same line: the rollback is refused with the conflict (dry run: the UI's preview).
  const conflict: number[] = [];
  for (let i = 0; i < 5; i++) {
    const l4 = fs.readFileSync(file, 'utf8').split('\n');
    l4[6000] = `- line 5999: first version ${i}`;
    const undone = write(l4.join('\n'));
    l4[6000] = `- line 5999: second version ${i}`;
    write(l4.join('\n'));
    const t0 = performance.now();
    const r = await rollbackWrite(ctx, { auditId: undone, dryRun: true });
    conflict.push(performance.now() - t0);
    if (!r.conflict) throw new Error('expected a conflict');
  }
  report(`rollback, ${LINES}-line file, file unchanged since (restore)`, restore, baseline);
  report(`rollback, ${LINES}-line file, changed since (reverse patch)`, reverse, baseline);
  report(`rollback preview, ${LINES}-line file, conflicting later write (refused)`, conflict, baseline);
  console.log('  (baseline: fs.writeFileSync + readFileSync of the same file)');
  db.close();
}

function historyBench(dir: string): void {
  const { db } = openWorkspaceDatabase(dir);
  const core = new RecorderCore(db);
  const ctx: ServiceContext = { db, workspaceDir: dir };
  const seed = timeIt(() =>
    core.batch(() => {
      let before: string | null = null;
      for (let i = 0; i < VERSIONS; i++) {
        const after = `# Memory\n- fact number ${i}\n- kept line\n`;
        core.recordWriteInTx(
          writeInput.parse({
            targetFile: 'MEMORY.md',
            before,
            after,
            status: 'written',
            source: 'external',
            createdAt: 1_700_000_000_000 + i * 1000,
          }),
        );
        before = after;
      }
    }),
  );
  console.log(`seeded ${VERSIONS} versions of MEMORY.md in ${fmt(seed.ms, 0)} ms`);
  const rawStmt = db.prepare(
    "SELECT id, created_at FROM write_guardian_audit WHERE target_file = 'MEMORY.md' ORDER BY created_at DESC LIMIT 20",
  );
  const raw = Array.from({ length: 30 }, () => timeIt(() => rawStmt.all()).ms);
  const baseline = percentile(raw, 50);
  const first = Array.from({ length: 30 }, () => timeIt(() => fileHistory(ctx, { file: 'MEMORY.md', limit: 20 })).ms);
  report(`guardian history, ${VERSIONS} versions, first page of 20`, first, baseline);
  // A deep page: the cursor 9,000 versions back.
  let cursor: string | undefined;
  for (let i = 0; i < 9; i++) cursor = fileHistory(ctx, { file: 'MEMORY.md', limit: 1000, cursor }).nextCursor ?? undefined;
  const deep = Array.from({ length: 30 }, () => timeIt(() => fileHistory(ctx, { file: 'MEMORY.md', limit: 20, cursor })).ms);
  report(`guardian history, ${VERSIONS} versions, page 9,000 versions deep`, deep, baseline);
  const all = timeIt(() => {
    let c: string | undefined;
    let n = 0;
    do {
      const p = fileHistory(ctx, { file: 'MEMORY.md', limit: 500, cursor: c });
      n += p.items.length;
      c = p.nextCursor ?? undefined;
    } while (c);
    return n;
  });
  console.log(`guardian history, all ${all.value} versions in pages of 500: ${fmt(all.ms)} ms`);
  console.log('  (baseline: a bare indexed SELECT of 20 rows)');
  db.close();
}

export const section: BenchSection = {
  name: 'write_guardian: rollback and file history',
  run: async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-bench-guardian-'));
    try {
      fs.mkdirSync(path.join(root, 'a'));
      fs.mkdirSync(path.join(root, 'b'));
      await rollbackBench(path.join(root, 'a'));
      historyBench(path.join(root, 'b'));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
};
