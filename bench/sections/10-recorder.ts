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

/** CPU milliseconds (user + system) of this process so far. */
const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * What one cpuNow() costs: the meter reads it around every recorder call, and about one read's cost
 * lands inside each measured interval, so it is taken off rather than charged to the recorder.
 */
function cpuReadCost(): number {
  const n = 20_000;
  const t0 = cpuNow();
  for (let i = 0; i < n; i++) cpuNow();
  return (cpuNow() - t0) / n;
}

type RecorderCall = [name: string, args: unknown[]];

/**
 * Times only the recorder's own calls, so the demo's text generation is not charged to it: wall time
 * and CPU time (the machine is shared, so CPU is the figure to compare). It also keeps each call and
 * each id the recorder made since the last take(), so the same calls can be replayed elsewhere.
 * Instances in `unmetered` (the replaying recorder) are left alone.
 */
function meterRecorder(unmetered: WeakSet<object>) {
  const proto = RecorderCore.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const names = ['upsertSession', 'insertTurn', 'insertContextBatch', 'insertDecision', 'recordWrite', 'batch'] as const;
  const originals = names.map((n) => [n, proto[n]] as const);
  const readCost = cpuReadCost();
  const time = { ms: 0, cpu: 0, intervals: 0 };
  let calls: RecorderCall[] = [];
  let ids: string[] = [];
  const withIds = new WeakSet<object>();
  let depth = 0;
  const measure = <T>(run: () => T, sign: 1 | -1): T => {
    const t0 = performance.now();
    const c0 = cpuNow();
    try {
      return run();
    } finally {
      time.cpu += sign * (cpuNow() - c0);
      time.ms += sign * (performance.now() - t0);
      time.intervals += sign;
    }
  };
  const keepIds = (core: { newId: (t: number) => string }) => {
    if (withIds.has(core)) return;
    withIds.add(core);
    const make = core.newId;
    core.newId = (t) => {
      const id = make(t);
      ids.push(id);
      return id;
    };
  };
  names.forEach((n) => {
    const original = proto[n];
    if (!original) throw new Error(`RecorderCore has no method ${n}`);
    proto[n] = function (this: object, ...args: unknown[]) {
      if (unmetered.has(this)) return original.apply(this, args);
      keepIds(this as unknown as { newId: (t: number) => string });
      // batch(fn) runs the generator inside: count only its commit, i.e. time outside nested calls.
      if (n === 'batch') {
        const fn = args[0] as () => unknown;
        return measure(() => original.call(this, () => measure(fn, -1)), 1);
      }
      if (depth++ > 0) {
        try {
          return original.apply(this, args);
        } finally {
          depth--;
        }
      }
      calls.push([n, args]);
      try {
        return measure(() => original.apply(this, args), 1);
      } finally {
        depth--;
      }
    };
  });
  return {
    wallMs: () => time.ms,
    cpuMs: () => time.cpu - time.intervals * readCost,
    take: () => {
      const taken = { calls, ids };
      calls = [];
      ids = [];
      return taken;
    },
    restore: () => originals.forEach(([n, f]) => f && (proto[n] = f)),
  };
}

/**
 * A second recorder that replays the generator's calls of one batch, with the same ids, in one
 * transaction: the recorder timed the way the plain loop is, over inputs already in memory. Inside
 * the generator, the recorder is also charged for the generator's garbage (the collector's threads
 * run during its calls, and process CPU time counts them) and for caches the generator cooled.
 */
function replayer(db: DB, unmetered: WeakSet<object>) {
  let ids: string[] = [];
  let at = 0;
  const core = new RecorderCore(db, {
    newId: () => {
      const id = ids[at++];
      if (id === undefined) throw new Error('replay: the recorder asked for more ids than it made the first time');
      return id;
    },
  });
  unmetered.add(core);
  const methods = core as unknown as Record<string, (...a: unknown[]) => unknown>;
  return {
    replay(batch: { calls: RecorderCall[]; ids: string[] }): { wallMs: number; cpuMs: number } {
      ids = batch.ids;
      at = 0;
      const t0 = performance.now();
      const c0 = cpuNow();
      core.batch(() => batch.calls.forEach(([name, args]) => methods[name]!(...args)));
      return { wallMs: performance.now() - t0, cpuMs: cpuNow() - c0 };
    },
  };
}

/**
 * The same rows, inserted with plain prepared statements, one transaction per recorder batch.
 * Called right after each recorder batch commits, so both paths run under the same machine load
 * (this machine is shared); only the insert transaction is timed, not reading the rows.
 * "The same rows" includes what the design asks of every recorded write besides the audit: its
 * memory_versions row (the health area's hash chain, a link per version) and the session's latest
 * activity, written here once per session and batch where the recorder touches it per turn.
 */
function plainCopier(source: DB, target: DB): { copyNew: () => { wallMs: number; cpuMs: number } } {
  const insertFor = (table: string, verb = 'INSERT', tail = '') => {
    // Column lists come from the schema, so columns added by later migrations are carried too.
    // A seq that is the rowid is left to the target; memory_versions' seq is data (a position in a chain).
    const columns = source
      .prepare(`SELECT name FROM pragma_table_info('${table}') WHERE NOT (name = 'seq' AND pk = 1)`)
      .pluck()
      .all() as string[];
    // Bound by position from arrays made before the clock starts: the cheapest binding better-sqlite3 offers.
    const insert = target.prepare(`${verb} INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ${tail}`);
    return { run: (values: unknown[]) => insert.run(values), values: (row: Record<string, unknown>) => columns.map((c) => row[c]) };
  };
  const insSession = insertFor('sessions', 'INSERT', 'ON CONFLICT(id) DO UPDATE SET last_activity_at = excluded.last_activity_at');
  const insTurn = insertFor('conversation_turns');
  const insContext = target.prepare(
    'INSERT INTO conversation_contexts (turn_id, role, message, timestamp, sequence_number) VALUES (?, ?, ?, ?, ?)',
  );
  const insDecision = insertFor('memory_gate_decisions');
  const insSnapshot = insertFor('file_snapshots', 'INSERT OR IGNORE');
  const insAudit = insertFor('write_guardian_audit');
  const insVersion = insertFor('memory_versions');
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
  const readVersion = source.prepare('SELECT * FROM memory_versions WHERE audit_id = ?');
  let lastSeq = 0;
  return {
    copyNew() {
      const turns = readTurns.all(lastSeq) as Array<Record<string, unknown>>;
      if (!turns.length) return { wallMs: 0, cpuMs: 0 };
      lastSeq = turns[turns.length - 1]!.seq as number;
      const sessions = readSessions.all(JSON.stringify([...new Set(turns.map((t) => t.session_id))])) as Array<Record<string, unknown>>;
      type Row = Record<string, unknown>;
      const rows = turns.map((t) => {
        const audits = readAudits.all(t.id) as Row[];
        const snapshots = audits
          .flatMap((a) => [a.before_snapshot_id, a.after_snapshot_id])
          .filter(Boolean)
          .map((id) => readSnapshot.get(id) as Row);
        return {
          turn: insTurn.values(t),
          contexts: readContexts.all(t.id) as unknown[][],
          decisions: (readDecisions.all(t.id) as Row[]).map(insDecision.values),
          snapshots: snapshots.map(insSnapshot.values),
          audits: audits.map(insAudit.values),
          versions: audits.map((a) => readVersion.get(a.id) as Row | undefined).flatMap((v) => (v ? [insVersion.values(v)] : [])),
        };
      });
      const sessionValues = sessions.map(insSession.values);
      const t0 = performance.now();
      const c0 = cpuNow();
      target.transaction(() => {
        for (const s of sessionValues) insSession.run(s);
        for (const r of rows) {
          insTurn.run(r.turn);
          for (const c of r.contexts) insContext.run(c);
          for (const d of r.decisions) insDecision.run(d);
          for (const s of r.snapshots) insSnapshot.run(s);
          for (const a of r.audits) insAudit.run(a);
          for (const v of r.versions) insVersion.run(v);
        }
      })();
      return { wallMs: performance.now() - t0, cpuMs: cpuNow() - c0 };
    },
  };
}

const COPIED_TABLES = [
  'sessions',
  'conversation_turns',
  'conversation_contexts',
  'memory_gate_decisions',
  'file_snapshots',
  'write_guardian_audit',
  'memory_versions',
];

/** 1. Ingest ratio: the demo generator through the recorder vs a plain loop of the same rows, batch by batch. */
function ingestRatio(root: string): void {
  const ratioWs = path.join(root, 'ratio');
  for (const d of ['raw', 'replay']) fs.mkdirSync(path.join(root, d));
  const rawTarget = openDatabaseFile(path.join(root, 'raw', 'raw.db')).db;
  const replayDb = openWorkspaceDatabase(path.join(root, 'replay')).db;
  const unmetered = new WeakSet<object>();
  const replay = replayer(replayDb, unmetered);
  let copier: ReturnType<typeof plainCopier> | undefined;
  let reader: DB | undefined;
  const raw = { wallMs: 0, cpuMs: 0 };
  const replayed = { wallMs: 0, cpuMs: 0 };
  const add = (sum: typeof raw, t: typeof raw) => ((sum.wallMs += t.wallMs), (sum.cpuMs += t.cpuMs));
  const meter = meterRecorder(unmetered);
  const r0 = performance.now();
  let outsideMs = 0;
  let batches = 0;
  generateDemoWorkspace(ratioWs, {
    seed: 'bench',
    sessions: Math.ceil(RATIO_TURNS / TURNS_PER_SESSION),
    turnsPerSession: TURNS_PER_SESSION,
    progress: () => {
      const p0 = performance.now();
      reader ??= openDatabaseFile(path.join(ratioWs, '.openclaw-reflection', 'reflection.db'), { readonly: true }).db;
      copier ??= plainCopier(reader, rawTarget);
      const batch = meter.take();
      // Alternate which goes first, so neither always runs right after the generator.
      if (batches++ % 2) {
        add(replayed, replay.replay(batch));
        add(raw, copier.copyNew());
      } else {
        add(raw, copier.copyNew());
        add(replayed, replay.replay(batch));
      }
      outsideMs += performance.now() - p0;
    },
  });
  const generatorMs = performance.now() - r0 - outsideMs;
  const live = { wallMs: meter.wallMs(), cpuMs: meter.cpuMs() };
  meter.restore();
  reader?.close();
  const source = openWorkspaceDatabase(ratioWs).db;
  const count = (db: DB, t: string) => db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number;
  const n = count(source, 'conversation_turns');
  const rows = COPIED_TABLES.reduce((sum, t) => sum + count(source, t), 0);
  for (const [name, db] of [
    ['plain loop', rawTarget],
    ['replay', replayDb],
  ] as const) {
    for (const t of COPIED_TABLES) {
      if (count(db, t) !== count(source, t)) throw new Error(`${name} wrote ${count(db, t)} rows of ${t}, expected ${count(source, t)}`);
    }
  }
  for (const db of [source, rawTarget, replayDb]) db.close();
  const perTurn = (t: typeof raw) =>
    `CPU ${fmt(t.cpuMs / 1000)} s (${fmt((t.cpuMs * 1000) / n, 0)} µs/turn)   wall ${fmt(t.wallMs / 1000)} s`;
  const ratio = (t: typeof raw) => `ratio CPU ${fmt(raw.cpuMs / t.cpuMs)}, wall ${fmt(raw.wallMs / t.wallMs)}`;
  console.log(
    `ingest of ${n.toLocaleString('en')} turns (${rows.toLocaleString('en')} rows in ${COPIED_TABLES.length} tables), ` +
      `${batches} batch${batches === 1 ? '' : 'es'}, the three timed paths alternating batch by batch:`,
  );
  console.log(`  plain better-sqlite3 loop            ${perTurn(raw)}`);
  console.log(`  recorder, the same calls replayed    ${perTurn(replayed)}   ${ratio(replayed)} (aim >= 0.8)`);
  console.log(`  recorder inside the demo generator   ${perTurn(live)}   ${ratio(live)}`);
  console.log(`  demo generator end to end            wall ${fmt(generatorMs / 1000)} s   ratio wall ${fmt(raw.wallMs / generatorMs)}`);
  for (const d of ['ratio', 'raw', 'replay']) fs.rmSync(path.join(root, d), { recursive: true, force: true });
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
      ingestRatio(root);
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
