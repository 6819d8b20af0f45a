// The recorded workspace at scale: a generated workspace of BENCH_TURNS turns (default 1,000,000).
// Reports ingest throughput against a plain better-sqlite3 loop of the same rows, gate list and
// full-text latency, database size per turn and peak memory. Reports only; never asserts on time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchSection } from '../index';
import { fmt, peakRss, percentile } from '../util';
import { openDatabaseFile, openWorkspaceDatabase, type DB } from '../../src/main/db/connection';
import { RecorderCore } from '../../src/main/recorder/recorder';
import { createRng, generateDemoWorkspace } from '../../src/main/services/demo';
import { listDecisions, statsOverview, gateStats } from '../../src/main/services/gate';
import { listSessions, listTurns } from '../../src/main/services/sessions';
import { search } from '../../src/main/services/search';
import type { ServiceContext } from '../../src/main/services/context';

const TURNS = Number(process.env.BENCH_TURNS ?? 1_000_000);
const RATIO_TURNS = Math.min(TURNS, Number(process.env.BENCH_RATIO_TURNS ?? 100_000));
const TURNS_PER_SESSION = 200;

function sizeOf(file: string): number {
  return ['', '-wal'].reduce((n, s) => n + (fs.existsSync(file + s) ? fs.statSync(file + s).size : 0), 0);
}

/** Times only the recorder's own calls, so the demo's text generation is not charged to it. */
function meterRecorder(): { total: () => number; restore: () => void } {
  const proto = RecorderCore.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const names = ['upsertSession', 'insertTurn', 'insertContextBatch', 'insertDecision', 'recordWrite', 'batch'] as const;
  const originals = names.map((n) => proto[n]);
  let ms = 0;
  let depth = 0;
  names.forEach((n, i) => {
    proto[n] = function (this: unknown, ...args: unknown[]) {
      // batch(fn) runs the generator inside: count only its commit, i.e. time outside nested calls.
      if (n === 'batch') {
        const fn = args[0] as () => unknown;
        const wrapped = () => {
          const t = performance.now();
          const r = fn();
          ms -= performance.now() - t;
          return r;
        };
        const t0 = performance.now();
        const r = originals[i].call(this, wrapped);
        ms += performance.now() - t0;
        return r;
      }
      if (depth++ > 0) {
        try { return originals[i].apply(this, args); } finally { depth--; }
      }
      const t0 = performance.now();
      try {
        return originals[i].apply(this, args);
      } finally {
        ms += performance.now() - t0;
        depth--;
      }
    };
  });
  return { total: () => ms, restore: () => names.forEach((n, i) => (proto[n] = originals[i])) };
}

/** The same rows, inserted with prepared statements in transactions of the same size, nothing else. */
function plainInsertLoop(source: DB, target: DB, batchTurns: number): number {
  const turns = source.prepare('SELECT * FROM conversation_turns ORDER BY seq').all() as Array<Record<string, unknown>>;
  const contexts = new Map<string, unknown[][]>();
  for (const c of source.prepare('SELECT turn_id, role, message, timestamp, sequence_number FROM conversation_contexts ORDER BY id').raw().iterate() as Iterable<unknown[]>) {
    const list = contexts.get(c[0] as string) ?? [];
    list.push(c);
    contexts.set(c[0] as string, list);
  }
  const decisions = new Map<string, Record<string, unknown>>();
  for (const d of source.prepare('SELECT * FROM memory_gate_decisions').iterate() as Iterable<Record<string, unknown>>) decisions.set(d.turn_id as string, d);
  const audits = new Map<string, Record<string, unknown>>();
  for (const a of source.prepare('SELECT * FROM write_guardian_audit').iterate() as Iterable<Record<string, unknown>>) audits.set(a.turn_id as string, a);
  const snapshots = new Map<string, Record<string, unknown>>();
  for (const s of source.prepare('SELECT * FROM file_snapshots').iterate() as Iterable<Record<string, unknown>>) snapshots.set(s.id as string, s);
  const sessions = source.prepare('SELECT * FROM sessions').all() as Array<Record<string, unknown>>;

  // Column lists come from the rows themselves, so columns added by later migrations are carried too.
  const insertFor = (table: string, columns: string[], verb = 'INSERT') =>
    target.prepare(`${verb} INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
  const columnsOf = (table: string) => (source.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]).filter((c) => c !== 'seq');
  const insSession = insertFor('sessions', columnsOf('sessions'));
  const insTurn = insertFor('conversation_turns', columnsOf('conversation_turns'));
  const insContext = target.prepare('INSERT INTO conversation_contexts (turn_id, role, message, timestamp, sequence_number) VALUES (?, ?, ?, ?, ?)');
  const insDecision = insertFor('memory_gate_decisions', columnsOf('memory_gate_decisions'));
  const insSnapshot = insertFor('file_snapshots', columnsOf('file_snapshots'), 'INSERT OR IGNORE');
  const insAudit = insertFor('write_guardian_audit', columnsOf('write_guardian_audit'));

  const t0 = performance.now();
  target.transaction(() => sessions.forEach((s) => insSession.run(s)))();
  for (let start = 0; start < turns.length; start += batchTurns) {
    target.transaction(() => {
      for (const t of turns.slice(start, start + batchTurns)) {
        const { seq: _seq, ...row } = t;
        insTurn.run(row);
        for (const c of contexts.get(t.id as string) ?? []) insContext.run(...c);
        const d = decisions.get(t.id as string);
        if (d) {
          const { seq: _s, ...drow } = d;
          insDecision.run(drow);
        }
        const a = audits.get(t.id as string);
        if (a) {
          for (const sid of [a.before_snapshot_id, a.after_snapshot_id]) if (sid) insSnapshot.run(snapshots.get(sid as string)!);
          insAudit.run(a);
        }
      }
    })();
  }
  return performance.now() - t0;
}

function timed(samples: number[], fn: () => unknown): void {
  const t0 = performance.now();
  fn();
  samples.push(performance.now() - t0);
}

const line = (label: string, s: number[]) =>
  console.log(`  ${label.padEnd(34)} p50 ${fmt(percentile(s, 50))} ms   p95 ${fmt(percentile(s, 95))} ms   (n=${s.length})`);

export const section: BenchSection = {
  name: `recorder and recorded workspace (${TURNS.toLocaleString('en')} turns)`,
  run() {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-bench-'));
    try {
      // 1. Ingest ratio: the demo generator through the recorder vs a plain loop of the same rows.
      const ratioWs = path.join(root, 'ratio');
      const meter = meterRecorder();
      const r0 = performance.now();
      generateDemoWorkspace(ratioWs, { seed: 'bench', sessions: Math.ceil(RATIO_TURNS / TURNS_PER_SESSION), turnsPerSession: TURNS_PER_SESSION });
      const generatorMs = performance.now() - r0;
      const recorderMs = meter.total();
      meter.restore();
      const source = openWorkspaceDatabase(ratioWs).db;
      const rawTarget = openDatabaseFile(path.join(root, 'raw', 'raw.db')).db;
      const rawMs = plainInsertLoop(source, rawTarget, 2000);
      const n = source.prepare('SELECT count(*) FROM conversation_turns').pluck().get() as number;
      const rows = ['conversation_turns', 'conversation_contexts', 'memory_gate_decisions', 'write_guardian_audit']
        .reduce((sum, t) => sum + (source.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number), 0);
      source.close();
      rawTarget.close();
      console.log(`ingest of ${n.toLocaleString('en')} turns (${rows.toLocaleString('en')} rows with contexts, decisions, audits):`);
      console.log(`  plain better-sqlite3 loop          ${fmt(rawMs / 1000)} s   ${fmt(n / (rawMs / 1000), 0)} turns/s`);
      console.log(`  recorder (its calls and commits)   ${fmt(recorderMs / 1000)} s   ${fmt(n / (recorderMs / 1000), 0)} turns/s   ratio ${fmt(rawMs / recorderMs)} (aim >= 0.5)`);
      console.log(`  demo generator end to end          ${fmt(generatorMs / 1000)} s   ${fmt(n / (generatorMs / 1000), 0)} turns/s   ratio ${fmt(rawMs / generatorMs)}`);
      fs.rmSync(path.join(root, 'ratio'), { recursive: true, force: true });
      fs.rmSync(path.join(root, 'raw'), { recursive: true, force: true });

      // 2. The big workspace.
      const ws = path.join(root, 'big');
      const rss = peakRss();
      const g0 = performance.now();
      let lastReport = 0;
      const summary = generateDemoWorkspace(ws, {
        seed: 'bench',
        sessions: Math.ceil(TURNS / TURNS_PER_SESSION),
        turnsPerSession: TURNS_PER_SESSION,
        progress: (done, total) => {
          if (performance.now() - lastReport > 30_000) {
            lastReport = performance.now();
            console.log(`  ... ${done.toLocaleString('en')} / ${total.toLocaleString('en')} turns`);
          }
        },
      });
      const genMs = performance.now() - g0;
      const peakMb = rss.stop();
      const dbFile = summary.dbPath;
      console.log(`generated ${summary.turns.toLocaleString('en')} turns, ${summary.contextItems.toLocaleString('en')} context messages, ` +
        `${summary.decisions.toLocaleString('en')} decisions in ${fmt(genMs / 1000, 1)} s (${fmt(summary.turns / (genMs / 1000), 0)} turns/s)`);
      console.log(`  database ${fmt(sizeOf(dbFile) / 1024 / 1024, 0)} MiB = ${fmt(sizeOf(dbFile) / summary.turns, 0)} bytes per turn (context window 6, FTS on turns and decisions)`);
      console.log(`  peak RSS while generating ${fmt(peakMb, 0)} MiB`);

      // 3. Reads: what the CLI and the UI do, on the big workspace.
      const db = openWorkspaceDatabase(ws).db;
      const ctx: ServiceContext = { db, workspaceDir: ws };
      const rng = createRng('reads');
      const sessions = db.prepare('SELECT id FROM sessions').pluck().all() as string[];
      const span = db.prepare('SELECT min(created_at) AS lo, max(created_at) AS hi FROM memory_gate_decisions').get() as { lo: number; hi: number };
      const bySession: number[] = [];
      const byDecision: number[] = [];
      const byRange: number[] = [];
      const unfiltered: number[] = [];
      const fts: number[] = [];
      const sessionPages: number[] = [];
      const timelinePages: number[] = [];
      for (let i = 0; i < 100; i++) {
        const sessionId = rng.pick(sessions);
        let cursor: string | undefined;
        for (let p = 0; p < 3; p++) timed(bySession, () => (cursor = listDecisions(ctx, { sessionId, limit: 50, cursor }).nextCursor ?? undefined));
      }
      for (const decision of ['NO_WRITE', 'UPDATE_MEMORY', 'UPDATE_USER', 'UPDATE_SOUL', 'UPDATE_IDENTITY', 'UPDATE_TOOLS'] as const) {
        let cursor: string | undefined;
        for (let p = 0; p < 50; p++) timed(byDecision, () => (cursor = listDecisions(ctx, { decision, limit: 50, cursor }).nextCursor ?? undefined));
      }
      for (let i = 0; i < 60; i++) {
        const since = span.lo + Math.floor(rng.next() * (span.hi - span.lo));
        let cursor: string | undefined;
        for (let p = 0; p < 5; p++) timed(byRange, () => (cursor = listDecisions(ctx, { since, until: since + 86_400_000, limit: 50, cursor }).nextCursor ?? undefined));
      }
      let cursor: string | undefined;
      for (let p = 0; p < 100; p++) timed(unfiltered, () => (cursor = listDecisions(ctx, { limit: 50, cursor }).nextCursor ?? undefined));
      const phrases = ['早上偏好', 'Berlin', '项目的上线', 'deploy.sh', 'standup', 'ripgrep', '燕麦拿铁', 'release manager', 'sparkling water', '周会固定', 'Nightingale launch', '不确定时'];
      for (let i = 0; i < 120; i++) timed(fts, () => search(ctx, { query: phrases[i % phrases.length], limit: 20 }));
      let sc: string | undefined;
      for (let p = 0; p < 50; p++) timed(sessionPages, () => (sc = listSessions(ctx, { limit: 50, cursor: sc }).nextCursor ?? undefined));
      for (let i = 0; i < 50; i++) timed(timelinePages, () => listTurns(ctx, { sessionId: rng.pick(sessions), limit: 50 }));
      console.log('gate list pages of 50 rows (with conversation text and write status):');
      line('by session (3 pages each)', bySession);
      line('by decision (50 pages each)', byDecision);
      line('by time range of one day (5 pages)', byRange);
      line('unfiltered, newest first (100 pages)', unfiltered);
      line('full-text search, 20 hits', fts);
      line('sessions list pages', sessionPages);
      line('session timeline pages (with decisions, writes)', timelinePages);
      const o0 = performance.now();
      statsOverview(ctx);
      const overviewMs = performance.now() - o0;
      const s0 = performance.now();
      gateStats(ctx, { groupBy: 'day', since: span.hi - 30 * 86_400_000 });
      console.log(`  stats overview (30 days) ${fmt(overviewMs, 0)} ms; gate stats --daily over 30 days ${fmt(performance.now() - s0, 0)} ms`);
      db.close();
    } finally {
      if (!process.env.BENCH_KEEP) fs.rmSync(root, { recursive: true, force: true });
      else console.log(`kept ${root}`);
    }
  },
};
