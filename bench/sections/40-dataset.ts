// Dataset curation at scale: collection of N decisions (default 100,000) and export of the collected
// samples in each format, each as a ratio against a plain JSON.stringify-and-write loop over the same
// rows in the same run, and the peak resident memory. DATASET_BENCH_DECISIONS overrides N.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { BenchSection } from '../index';
import { fmt, peakRss } from '../util';
import { openWorkspaceDatabase, type DB } from '../../src/main/db/connection';
import { RecorderCore } from '../../src/main/recorder/recorder';
import { collectSamples, exportDataset } from '../../src/main/services/dataset';
import { correctWrite } from '../../src/main/services/guardian/corrections';
import { EXPORT_FORMATS, type GateDecision } from '../../src/shared/domain';
import { NEAR_DUP_PAIRS, pairScores, runNearDupPairs } from '../../tests/dataset/nearDupPairs';

const FILES = ['USER.md', 'MEMORY.md', 'TOOLS.md'] as const;
const DECISION_FOR: Record<(typeof FILES)[number], GateDecision> = { 'USER.md': 'UPDATE_USER', 'MEMORY.md': 'UPDATE_MEMORY', 'TOOLS.md': 'UPDATE_TOOLS' };
const TOPICS = ['green tea', 'morning check-ins', 'the Falcon release', 'pnpm', 'dark mode', '周报格式', '上海的办公室', 'vim keybindings', 'the on-call rota', '晚上九点以后不开会'];
const FOLLOWUPS = ['Thanks, perfect!', 'No, that is wrong.', '为什么会这样？', '我更喜欢用 pnpm', 'ok', 'Also, never use sudo.', 'cool', '可以了'];

/** A recorded workspace with n decisions: 60% written, 15% refused, 25% NO_WRITE; some PII, some repeats. */
function buildWorkspace(dir: string, n: number): DB {
  const { db } = openWorkspaceDatabase(dir);
  const rec = new RecorderCore(db);
  const sessions = Math.max(1, Math.floor(n / 25));
  const base = Date.UTC(2026, 0, 1);
  let t = base;
  let i = 0;
  const chunk = 5000;
  const toCorrect: string[] = [];
  while (i < n) {
    rec.batch(() => {
      for (let k = 0; k < chunk && i < n; k++, i++) {
        const s = `channel:bench:${i % sessions}`;
        t += 1000;
        if (i < sessions) rec.upsertSession({ id: s, channelId: 'bench', conversationTarget: String(i), createdAt: base, lastActivityAt: base });
        const topic = TOPICS[i % TOPICS.length];
        const pii = i % 20 === 0 ? ` Mail me at user${i}@example.com or call 138${String(10000000 + i).slice(-8)}.` : '';
        const user = i % 7 === 0 ? FOLLOWUPS[i % FOLLOWUPS.length] : `Note ${i}: I care about ${topic}, variant ${i % 97}.${pii}`;
        const turn = rec.insertTurn({ sessionId: s, userMessage: { content: user }, agentReply: { content: `Understood about ${topic} (${i}).` }, createdAt: t });
        const kind = i % 20;
        const file = FILES[i % FILES.length];
        const decision: GateDecision = kind < 5 ? 'NO_WRITE' : DECISION_FOR[file];
        const fact = decision === 'NO_WRITE' ? undefined : `User cares about ${topic} (${i % 97})`;
        const decisionId = rec.insertDecision({
          turnId: turn.id, sessionId: s, decision, reason: `Stable preference about ${topic}.`, candidateFact: fact,
          llmCall: { model: 'bench', latencyMs: 50 }, createdAt: t + 1,
        });
        if (decision !== 'NO_WRITE') {
          const w = rec.recordWrite({
            decisionId, turnId: turn.id, sessionId: s, targetFile: file, candidateFact: fact,
            status: kind < 8 ? 'refused' : 'written', reason: kind < 8 ? 'Duplicate of an existing entry.' : 'Applied.', createdAt: t + 2,
          });
          if (kind === 19) toCorrect.push(w.auditId);
        }
      }
    });
  }
  // one write in twenty gets a curator correction (preference pairs for openai-dpo)
  const ctx = { db, workspaceDir: dir, now: () => t + 10_000 };
  toCorrect.forEach((auditId, k) =>
    k % 2
      ? correctWrite(ctx, { auditId, status: 'refused', reason: 'Not worth remembering.' })
      : correctWrite(ctx, { auditId, status: 'written', fact: `Corrected fact ${k}`, file: 'MEMORY.md', reason: 'Belongs in MEMORY.md, said precisely.' }),
  );
  return db;
}

/** Peak V8 heap (JS objects): RSS also counts SQLite's page cache and memory-mapped database pages. */
function peakHeap(): { stop: () => number } {
  let peak = process.memoryUsage().heapUsed;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().heapUsed); }, 20);
  return { stop: () => { clearInterval(timer); return Math.max(peak, process.memoryUsage().heapUsed) / (1024 * 1024); } };
}

/**
 * Live heap after a full GC at each tenth of the work: flat numbers mean memory does not grow with
 * the data (peak heap above also counts garbage not yet collected).
 */
function liveHeapProbe(): { progress: (done: number, total: number | null) => void; samples: number[] } {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const samples: number[] = [];
  let next = 0.1;
  return {
    samples,
    progress: (done, total) => {
      if (!total || done / total < next) return;
      next += 0.1;
      gc();
      samples.push(Math.round(process.memoryUsage().heapUsed / 1048576));
    },
  };
}

async function baselineWrite(db: DB, sql: string, file: string): Promise<{ ms: number; rows: number }> {
  const t0 = performance.now();
  const out = fs.createWriteStream(file);
  let rows = 0;
  for (const row of db.prepare(sql).iterate()) {
    rows++;
    if (!out.write(`${JSON.stringify(row)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return { ms: performance.now() - t0, rows };
}

export const section: BenchSection = {
  name: 'dataset: collect and export',
  async run() {
    const n = Number(process.env.DATASET_BENCH_DECISIONS ?? 100_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-bench-dataset-'));
    try {
      // dedupe quality first: the labelled pair set (tests/dataset/nearDupPairs.ts), through the real collector
      const pairs = pairScores(await runNearDupPairs(fs.mkdtempSync(path.join(dir, 'pairs-'))));
      const nDistinct = NEAR_DUP_PAIRS.filter((p) => !p.same).length;
      console.log(
        `near-duplicate pairs: ${NEAR_DUP_PAIRS.length} (${nDistinct} distinct facts from consecutive turns, ${NEAR_DUP_PAIRS.length - nDistinct} copies of one lesson); ` +
          `pair precision ${fmt(pairs.precision, 3)}, recall ${fmt(pairs.recall, 3)} (tp ${pairs.tp}, fp ${pairs.fp}, fn ${pairs.fn}, tn ${pairs.tn})`,
      );
      const tb = performance.now();
      const db = buildWorkspace(dir, n);
      console.log(`workspace: ${n} decisions recorded in ${fmt((performance.now() - tb) / 1000, 1)} s`);
      const ctx = { db, workspaceDir: dir };

      const base = await baselineWrite(
        db,
        `SELECT d.*, t.user_message_content, t.agent_message_content FROM memory_gate_decisions d JOIN conversation_turns t ON t.id = d.turn_id`,
        path.join(dir, 'baseline-decisions.jsonl'),
      );
      const mem = peakRss();
      const heap = peakHeap();
      const live = liveHeapProbe();
      const t0 = performance.now();
      const result = await collectSamples({ ...ctx, progress: live.progress }, { autoApprove: true });
      const ms = performance.now() - t0;
      const peak = mem.stop();
      const heapPeak = heap.stop();
      console.log(
        `collect: ${result.decisionsScanned} decisions -> ${result.addedTotal} samples (${result.duplicates} clustered) in ${fmt(ms / 1000, 1)} s ` +
          `= ${fmt(result.decisionsScanned / (ms / 1000), 0)} decisions/s; baseline stringify+write ${fmt(base.ms, 0)} ms; ` +
          `ratio ${fmt(base.ms / ms, 3)} (aim >= 0.5); peak RSS ${fmt(peak, 0)} MB (aim < 300), peak heap ${fmt(heapPeak, 0)} MB`,
      );

      console.log(`collect: live heap after GC at each tenth (MB): ${live.samples.join(' ')}`);

      const sampleBase = await baselineWrite(db, 'SELECT * FROM dataset_samples', path.join(dir, 'baseline-samples.jsonl'));
      for (const format of EXPORT_FORMATS) {
        const m = peakRss();
        const h = peakHeap();
        const te = performance.now();
        const r = await exportDataset(ctx, { format, outDir: path.join(dir, `export-${format}`) }).catch((e: Error) => e);
        if (r instanceof Error) {
          console.log(`export ${format.padEnd(10)}: ${r.message}`);
          continue;
        }
        const ems = performance.now() - te;
        const epeak = m.stop();
        const hpeak = h.stop();
        // the baseline writes every stored sample; scale it to the number this export wrote
        const scaled = sampleBase.ms * (Math.max(r.total, 1) / sampleBase.rows);
        console.log(
          `export ${format.padEnd(10)}: ${r.total} samples in ${fmt(ems / 1000, 2)} s = ${fmt(r.total / (ems / 1000), 0)} samples/s; ` +
            `ratio ${fmt(scaled / ems, 3)}; folded ${r.summary.folded.total}, identical dropped ${r.summary.identicalDropped.count}; peak RSS ${fmt(epeak, 0)} MB, heap ${fmt(hpeak, 0)} MB; ${fmt(r.files.reduce((a, f) => a + f.bytes, 0) / 1048576, 1)} MiB written`,
        );
        fs.rmSync(r.outDir, { recursive: true, force: true });
      }
      const liveExport = liveHeapProbe();
      await exportDataset({ ...ctx, progress: liveExport.progress }, { format: 'csv', outDir: path.join(dir, 'export-live') });
      console.log(`export csv: live heap after GC at each tenth (MB): ${liveExport.samples.join(' ')}`);
      console.log(`baseline over all ${sampleBase.rows} stored samples: ${fmt(sampleBase.ms, 0)} ms`);
      db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};
