// The recorded workspace at scale: a generated workspace of BENCH_TURNS turns (default 1,000,000).
// Reports ingest throughput against a plain better-sqlite3 loop of the same rows (BENCH_RATIO_TURNS,
// default 100,000; BENCH_RATIO_ONLY=1 stops there), gate list and
// full-text latency, database size per turn and peak memory. Reports only; never asserts on time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchSection } from '../index';
import { fmt, peakRss, percentile } from '../util';
import { openDatabaseFile, openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { RecorderCore } from '../../src/core/recorder/recorder';
import { createRng, generateDemoWorkspace } from '../../src/core/demo';
import { listDecisions, statsOverview, gateStats } from '../../src/core/gate';
import { listSessions, listTurns } from '../../src/core/sessions';
import { search } from '../../src/core/search';
import type { ServiceContext } from '../../src/core/context';

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
  const originals = names.map((n) => [n, proto[n]] as const);
  let ms = 0;
  let depth = 0;
  names.forEach((n) => {
    const original = proto[n];
    if (!original) throw new Error(`RecorderCore has no method ${n}`);
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
        const r = original.call(this, wrapped);
        ms += performance.now() - t0;
        return r;
      }
      if (depth++ > 0) {
        try {
          return original.apply(this, args);
        } finally {
          depth--;
        }
      }
      const t0 = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        ms += performance.now() - t0;
        depth--;
      }
    };
  });
  return { total: () => ms, restore: () => originals.forEach(([n, f]) => f && (proto[n] = f)) };
}

/**
 * The same rows, inserted with plain prepared statements, one transaction per recorder batch.
 * Called right after each recorder batch commits, so both paths run under the same machine load
 * (this machine is shared); only the insert transaction is timed, not reading the rows.
 */
function plainCopier(source: DB, target: DB): { copyNew: () => number } {
  const insertFor = (table: string, verb = 'INSERT') => {
    // Column lists come from the schema, so columns added by later migrations are carried too.
    const columns = (source.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]).filter((c) => c !== 'seq');
    return target.prepare(`${verb} INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
  };
  const insSession = insertFor('sessions', 'INSERT OR IGNORE');
  const insTurn = insertFor('conversation_turns');
  const insContext = target.prepare(
    'INSERT INTO conversation_contexts (turn_id, role, message, timestamp, sequence_number) VALUES (?, ?, ?, ?, ?)',
  );
  const insDecision = insertFor('memory_gate_decisions');
  const insSnapshot = insertFor('file_snapshots', 'INSERT OR IGNORE');
  const insAudit = insertFor('write_guardian_audit');
  const readTurns = source.prepare('SELECT * FROM conversation_turns WHERE seq > ? ORDER BY seq');
  const readSessions = source.prepare('SELECT * FROM sessions WHERE id IN (SELECT value FROM json_each(?))');
  const readContexts = source
    .prepare(
      'SELECT turn_id, role, message, timestamp, sequence_number FROM conversation_contexts WHERE turn_id = ? ORDER BY sequence_number',
    )
    .raw();
  const readDecisions = source.prepare('SELECT * FROM memory_gate_decisions WHERE turn_id = ?');
  const readAudits = source.prepare('SELECT * FROM write_guardian_audit WHERE turn_id = ?');
  const readSnapshot = source.prepare('SELECT * FROM file_snapshots WHERE id = ?');
  let lastSeq = 0;
  return {
    copyNew() {
      const turns = readTurns.all(lastSeq) as Array<Record<string, unknown>>;
      if (!turns.length) return 0;
      lastSeq = turns[turns.length - 1]!.seq as number;
      const sessions = readSessions.all(JSON.stringify([...new Set(turns.map((t) => t.session_id))])) as Array<Record<string, unknown>>;
      const rows = turns.map((t) => {
        const { seq: _seq, ...turn } = t;
        const audits = readAudits.all(t.id) as Array<Record<string, unknown>>;
        const snapshots = audits
          .flatMap((a) => [a.before_snapshot_id, a.after_snapshot_id])
          .filter(Boolean)
          .map((id) => readSnapshot.get(id));
        return {
          turn,
          contexts: readContexts.all(t.id) as unknown[][],
          decisions: (readDecisions.all(t.id) as Array<Record<string, unknown>>).map(({ seq: _s, ...d }) => d),
          audits,
          snapshots: snapshots as Array<Record<string, unknown>>,
        };
      });
      const t0 = performance.now();
      target.transaction(() => {
        for (const s of sessions) insSession.run(s);
        for (const r of rows) {
          insTurn.run(r.turn);
          for (const c of r.contexts) insContext.run(...c);
          for (const d of r.decisions) insDecision.run(d);
          for (const s of r.snapshots) insSnapshot.run(s);
          for (const a of r.audits) insAudit.run(a);
        }
      })();
      return performance.now() - t0;
    },
  };
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
      fs.mkdirSync(path.join(root, 'raw'));
      const rawTarget = openDatabaseFile(path.join(root, 'raw', 'raw.db')).db;
      let copier: ReturnType<typeof plainCopier> | undefined;
      let reader: DB | undefined;
      let rawMs = 0;
      const meter = meterRecorder();
      const r0 = performance.now();
      let outsideMs = 0;
      generateDemoWorkspace(ratioWs, {
        seed: 'bench',
        sessions: Math.ceil(RATIO_TURNS / TURNS_PER_SESSION),
        turnsPerSession: TURNS_PER_SESSION,
        progress: () => {
          const p0 = performance.now();
          reader ??= openDatabaseFile(path.join(ratioWs, '.openclaw-reflection', 'reflection.db'), { readonly: true }).db;
          copier ??= plainCopier(reader, rawTarget);
          rawMs += copier.copyNew();
          outsideMs += performance.now() - p0;
        },
      });
      const generatorMs = performance.now() - r0 - outsideMs;
      const recorderMs = meter.total();
      meter.restore();
      reader?.close();
      const source = openWorkspaceDatabase(ratioWs).db;
      const n = source.prepare('SELECT count(*) FROM conversation_turns').pluck().get() as number;
      const rows = ['conversation_turns', 'conversation_contexts', 'memory_gate_decisions', 'write_guardian_audit'].reduce(
        (sum, t) => sum + (source.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number),
        0,
      );
      const copied = rawTarget.prepare('SELECT count(*) FROM conversation_turns').pluck().get() as number;
      if (copied !== n) throw new Error(`plain loop copied ${copied} turns, expected ${n}`);
      source.close();
      rawTarget.close();
      console.log(
        `ingest of ${n.toLocaleString('en')} turns (${rows.toLocaleString('en')} rows with contexts, decisions, audits), batch by batch alternating:`,
      );
      console.log(`  plain better-sqlite3 loop          ${fmt(rawMs / 1000)} s   ${fmt(n / (rawMs / 1000), 0)} turns/s`);
      console.log(
        `  recorder (its calls and commits)   ${fmt(recorderMs / 1000)} s   ${fmt(n / (recorderMs / 1000), 0)} turns/s   ratio ${fmt(rawMs / recorderMs)} (aim >= 0.5)`,
      );
      console.log(
        `  demo generator end to end          ${fmt(generatorMs / 1000)} s   ${fmt(n / (generatorMs / 1000), 0)} turns/s   ratio ${fmt(rawMs / generatorMs)}`,
      );
      fs.rmSync(path.join(root, 'ratio'), { recursive: true, force: true });
      fs.rmSync(path.join(root, 'raw'), { recursive: true, force: true });

      if (process.env.BENCH_RATIO_ONLY) return;

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
      console.log(
        `generated ${summary.turns.toLocaleString('en')} turns, ${summary.contextItems.toLocaleString('en')} context messages, ` +
          `${summary.decisions.toLocaleString('en')} decisions in ${fmt(genMs / 1000, 1)} s (${fmt(summary.turns / (genMs / 1000), 0)} turns/s)`,
      );
      console.log(
        `  database ${fmt(sizeOf(dbFile) / 1024 / 1024, 0)} MiB = ${fmt(sizeOf(dbFile) / summary.turns, 0)} bytes per turn (context window 6, FTS on turns and decisions)`,
      );
      console.log(`  peak RSS while generating ${fmt(peakMb, 0)} MiB`);

      // 3. Reads: what the CLI and the UI do, on the big workspace.
      const db = openWorkspaceDatabase(ws).db;
      const ctx: ServiceContext = { db, workspaceDir: ws };
      const rng = createRng('reads');
      const sessions = db.prepare('SELECT id FROM sessions').pluck().all() as string[];
      const span = db.prepare('SELECT min(created_at) AS lo, max(created_at) AS hi FROM memory_gate_decisions').get() as {
        lo: number;
        hi: number;
      };
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
        for (let p = 0; p < 3; p++)
          timed(bySession, () => (cursor = listDecisions(ctx, { sessionId, limit: 50, cursor }).nextCursor ?? undefined));
      }
      for (const decision of ['NO_WRITE', 'UPDATE_MEMORY', 'UPDATE_USER', 'UPDATE_SOUL', 'UPDATE_IDENTITY', 'UPDATE_TOOLS'] as const) {
        let cursor: string | undefined;
        for (let p = 0; p < 50; p++)
          timed(byDecision, () => (cursor = listDecisions(ctx, { decision, limit: 50, cursor }).nextCursor ?? undefined));
      }
      for (let i = 0; i < 60; i++) {
        const since = span.lo + Math.floor(rng.next() * (span.hi - span.lo));
        let cursor: string | undefined;
        for (let p = 0; p < 5; p++)
          timed(
            byRange,
            () => (cursor = listDecisions(ctx, { since, until: since + 86_400_000, limit: 50, cursor }).nextCursor ?? undefined),
          );
      }
      let cursor: string | undefined;
      for (let p = 0; p < 100; p++) timed(unfiltered, () => (cursor = listDecisions(ctx, { limit: 50, cursor }).nextCursor ?? undefined));
      const phrases = [
        '早上偏好',
        'Berlin',
        '项目的上线',
        'deploy.sh',
        'standup',
        'ripgrep',
        '燕麦拿铁',
        'release manager',
        'sparkling water',
        '周会固定',
        'Nightingale launch',
        '不确定时',
      ];
      for (let i = 0; i < 120; i++) timed(fts, () => search(ctx, { text: phrases[i % phrases.length]!, limit: 20 }));
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
      gateStats(ctx, { groupBy: 'daily', since: span.hi - 30 * 86_400_000 });
      console.log(
        `  stats overview (30 days) ${fmt(overviewMs, 0)} ms; gate stats --daily over 30 days ${fmt(performance.now() - s0, 0)} ms`,
      );
      db.close();
    } finally {
      if (!process.env.BENCH_KEEP) fs.rmSync(root, { recursive: true, force: true });
      else console.log(`kept ${root}`);
    }
  },
};
