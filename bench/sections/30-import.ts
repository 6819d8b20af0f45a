// Import throughput of a generated OpenClaw transcript (default 100 MB; REFLECTION_BENCH_IMPORT_MB to change),
// against a raw baseline measured in the same run: reading the same file line by line and JSON.parse of each line.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { BenchSection } from '../index';
import Database from 'better-sqlite3';
import { compress, init as initZstd } from '@bokuweb/zstd-wasm';
import { fmt, peakRss } from '../util';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { importOpenClaw } from '../../src/core/importers';

const TARGET_MB = Number(process.env.REFLECTION_BENCH_IMPORT_MB ?? 100);

/** Writes a transcript shaped like OpenClaw's: envelope user texts, tool calls, tool results, replies, failed attempts. */
export function generateTranscript(file: string, targetBytes: number): { lines: number; bytes: number } {
  const fd = fs.openSync(file, 'w');
  let bytes = 0;
  let lines = 0;
  let parent: string | null = null;
  let n = 0;
  let t = Date.UTC(2026, 2, 1);
  const buf: string[] = [];
  const push = ({ type, ...rest }: { type: string } & Record<string, unknown>) => {
    const id = (++n).toString(16).padStart(8, '0');
    // OpenClaw writes type, id, parentId and timestamp first (see the fixtures): the importer's cheap path reads that order.
    const line = JSON.stringify({ type, id, parentId: parent, timestamp: new Date((t += 1500)).toISOString(), ...rest });
    parent = id;
    buf.push(line);
    bytes += Buffer.byteLength(line) + 1;
    lines++;
    if (buf.length >= 2000) fs.writeSync(fd, `${buf.splice(0).join('\n')}\n`);
  };
  const header = JSON.stringify({ type: 'session', version: 3, id: 'bench-session', timestamp: new Date(t).toISOString(), cwd: '/tmp' });
  fs.writeSync(fd, `${header}\n`);
  bytes += header.length + 1;
  const filler = 'The backup job finished and the disk is at 63 percent; 记录一下今天的进度。 '.repeat(12);
  for (let turn = 0; bytes < targetBytes; turn++) {
    push({
      type: 'message',
      message: {
        role: 'user',
        content: [
          {
            type: 'text',
            text: `Conversation info (untrusted metadata):\n\`\`\`json\n{"message_id": "${turn}", "sender": "bench"}\n\`\`\`\n\nQuestion ${turn}: ${filler.slice(0, 200)}`,
          },
        ],
        timestamp: t,
      },
    });
    if (turn % 20 === 0)
      push({
        type: 'message',
        message: { role: 'assistant', content: [], stopReason: 'error', provider: 'anthropic', model: 'm', errorMessage: 'overloaded' },
      });
    push({
      type: 'message',
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'toolCall', id: `call_${turn}`, name: 'exec', arguments: { command: `cat /var/log/job-${turn}.log` } },
        ],
        provider: 'anthropic',
        model: 'claude-sonnet-4-6',
        stopReason: 'toolUse',
        usage: { input: 1200, output: 40, totalTokens: 1240 },
      },
    });
    push({
      type: 'message',
      message: {
        role: 'toolResult',
        toolCallId: `call_${turn}`,
        toolName: 'exec',
        content: [{ type: 'text', text: filler.repeat(2) }],
        isError: false,
      },
    });
    push({
      type: 'message',
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: `[[reply_to_current]] Done with ${turn}. ${filler.slice(0, 300)}` }],
        provider: 'anthropic',
        model: 'claude-sonnet-4-6',
        stopReason: 'stop',
        usage: { input: 1500, output: 90, totalTokens: 1590 },
      },
    });
  }
  fs.writeSync(fd, buf.length ? `${buf.join('\n')}\n` : '');
  fs.closeSync(fd);
  return { lines: lines + 1, bytes };
}

/**
 * The same transcript in OpenClaw's per-agent SQLite store (agents/main/agent/openclaw-agent.sqlite):
 * one row per entry, entries of 1 KiB or more zstd-compressed (level 1) when that saves 10%, as OpenClaw does.
 */
async function buildAgentStore(file: string, stateDir: string): Promise<{ rows: number; compressed: number }> {
  await initZstd();
  const dbFile = path.join(stateDir, 'agents', 'main', 'agent', 'openclaw-agent.sqlite');
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  const db = new Database(dbFile);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY, current_session_id TEXT NOT NULL, entry_json TEXT NOT NULL, updated_at INTEGER NOT NULL);
    CREATE TABLE session_windows (session_id TEXT PRIMARY KEY, session_key TEXT NOT NULL, previous_session_id TEXT, reason TEXT);
    CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL,
      event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq));`);
  db.prepare('INSERT INTO session_nodes VALUES (?, ?, ?, ?)').run(
    'agent:main:main',
    'bench-session',
    JSON.stringify({ sessionId: 'bench-session' }),
    Date.now(),
  );
  db.prepare("INSERT INTO session_windows VALUES ('bench-session', 'agent:main:main', NULL, NULL)").run();
  const plain = db.prepare("INSERT INTO transcript_events VALUES ('bench-session', ?, ?, ?, NULL, NULL, NULL)");
  const packed = db.prepare("INSERT INTO transcript_events VALUES ('bench-session', ?, NULL, ?, ?, ?, '{}')");
  let rows = 0;
  let compressed = 0;
  const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  db.exec('BEGIN');
  for await (const line of rl) {
    if (!line) continue;
    const raw = Buffer.from(line);
    const frame = raw.length >= 1024 ? compress(raw, 1) : undefined;
    if (frame && frame.length <= raw.length * 0.9) {
      packed.run(++rows, Date.now(), frame, raw.length);
      compressed++;
    } else plain.run(++rows, line, Date.now());
  }
  db.exec('COMMIT');
  db.close();
  return { rows, compressed };
}

async function rawBaseline(file: string): Promise<number> {
  let parsed = 0;
  const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line) {
      JSON.parse(line);
      parsed++;
    }
  }
  return parsed;
}

interface ChildResult {
  seconds: number;
  cpu: number;
  peakRss: number;
  peakHeap: number;
  /** Anonymous (non file-backed) resident memory: RSS without memory-mapped database pages. Linux only. */
  peakAnon: number | null;
  rssBefore: number;
  turns: number;
  contexts: number;
  skipped: number;
  /** CPU seconds to insert the imported turn rows, as stored, into a fresh workspace database (its indexes and trigram FTS). */
  turnRowsCpu: number;
}

function importInChild(dir: string, file: string): Promise<ChildResult> {
  return runImportChild<ChildResult>([dir, file]);
}

/**
 * One raw baseline run in a fresh process, as the import runs: a run in a warm process had its parse and
 * stream code compiled already, while the import pays its own compilation (0.35-0.4 s of CPU, measured),
 * which alone moved the ratio by 1.5-2x at 20 MB.
 */
async function coldBaselineCpu(file: string): Promise<{ cpu: number; seconds: number }> {
  return runImportChild<{ cpu: number; seconds: number }>(['baseline', file]);
}

function runImportChild<T>(args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, args, {
      execArgv: ['--require', 'tsx/cjs'],
      env: { ...process.env, REFLECTION_BENCH_IMPORT_CHILD: '1' },
    });
    child.once('message', (m) => resolve(m as T));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`import child exited with ${code}`)));
  });
}

function rssAnonMb(): number | null {
  try {
    const m = /RssAnon:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * The part of the floor the importer cannot avoid: the same turn rows, as the import stored them, inserted
 * into a fresh workspace database (its indexes, CHECKs and trigram FTS trigger), fifty rows per INSERT (the
 * cheapest way found: FTS5 flushes once per statement) in transactions of 2,000.
 */
function turnRowsFloor(from: Database.Database): number {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-bench-import-floor-'));
  const { db } = openWorkspaceDatabase(dir);
  try {
    const insertSession = db.prepare(
      'INSERT INTO sessions (id, channel_id, conversation_target, account_id, created_at, last_activity_at, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    for (const r of from.prepare('SELECT * FROM sessions').raw().all() as unknown[][]) insertSession.run(r.slice(0, 7));
    const columns = `id, session_id, turn_number, user_message_id, user_message_content, user_from, user_metadata,
      agent_message_id, agent_message_content, agent_metadata, created_at`;
    const insert = (n: number) =>
      db.prepare(
        `INSERT INTO conversation_turns (${columns}) VALUES ${Array(n)
          .fill(`(${Array(11).fill('?').join(', ')})`)
          .join(', ')}`,
      );
    const fifty = insert(50);
    const read = from.prepare(`SELECT ${columns}, seq FROM conversation_turns WHERE seq > ? ORDER BY seq LIMIT 2000`);
    const c = process.cpuUsage();
    for (let after = 0; ;) {
      const rows = read.raw().all(after) as unknown[][];
      if (!rows.length) break;
      db.transaction(() => {
        for (let i = 0; i < rows.length; i += 50) {
          const part = rows.slice(i, i + 50);
          (part.length === 50 ? fifty : insert(part.length)).run(part.flatMap((r) => r.slice(0, 11)));
        }
      })();
      after = rows[rows.length - 1]![11] as number;
    }
    const u = process.cpuUsage(c);
    return (u.user + u.system) / 1e6;
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function childMain(dir: string, file: string): Promise<void> {
  const { db } = openWorkspaceDatabase(dir);
  const rssBefore = process.memoryUsage().rss / (1024 * 1024);
  const peak = peakRss();
  let peakHeap = 0;
  let peakAnon: number | null = null;
  const heapTimer = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, (m.heapUsed + m.external + m.arrayBuffers) / (1024 * 1024));
    const anon = rssAnonMb();
    if (anon !== null) peakAnon = Math.max(peakAnon ?? 0, anon);
  }, 20);
  const t = performance.now();
  const c = process.cpuUsage();
  const report = await importOpenClaw({ db, workspaceDir: dir }, { source: file });
  const u = process.cpuUsage(c);
  const result: ChildResult = {
    seconds: (performance.now() - t) / 1000,
    cpu: (u.user + u.system) / 1e6,
    peakRss: peak.stop(),
    peakHeap,
    peakAnon,
    rssBefore,
    turns: report.inserted.conversation_turns ?? 0,
    contexts: report.inserted.conversation_contexts ?? 0,
    skipped: report.skippedCount,
    turnRowsCpu: 0,
  };
  clearInterval(heapTimer);
  result.turnRowsCpu = turnRowsFloor(db);
  db.close();
  process.send!(result, () => process.exit(0));
}

async function baselineChildMain(file: string): Promise<void> {
  const t = performance.now();
  const c = process.cpuUsage();
  await rawBaseline(file);
  const u = process.cpuUsage(c);
  process.send!({ cpu: (u.user + u.system) / 1e6, seconds: (performance.now() - t) / 1000 }, () => process.exit(0));
}

if (process.env.REFLECTION_BENCH_IMPORT_CHILD && process.send) {
  const [dir, file] = process.argv.slice(2);
  if (!dir || !file) throw new Error('import bench child: expected <workspace dir> <source file>, or baseline <source file>');
  void (dir === 'baseline' ? baselineChildMain(file) : childMain(dir, file));
}

export const section: BenchSection = {
  name: `import: ${TARGET_MB} MB OpenClaw transcript`,
  async run() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-bench-import-'));
    try {
      const file = path.join(dir, 'sessions', 'bench.jsonl');
      fs.mkdirSync(path.dirname(file));
      const gen = generateTranscript(file, TARGET_MB * 1024 * 1024);
      const mbs = gen.bytes / (1024 * 1024);
      console.log(`generated ${fmt(mbs, 1)} MB, ${gen.lines} lines`);

      const cpuSeconds = (since: NodeJS.CpuUsage) => {
        const u = process.cpuUsage(since);
        return (u.user + u.system) / 1e6;
      };
      // The baseline is a fraction of a second of CPU, so one sample of it moved the ratio by half (66-96 MB/s
      // at load 1): medians of three runs, here in this (warm) process, printed for reference.
      const runs: { s: number; cpu: number; lines: number }[] = [];
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        const lines = await rawBaseline(file);
        runs.push({ s: (performance.now() - t0) / 1000, cpu: cpuSeconds(c0), lines });
      }
      runs.sort((a, b) => a.cpu - b.cpu);
      const { cpu: warmCpu, lines } = runs[1]!; // three runs
      // The import runs once in a fresh process: so does each of three more baseline runs, and their
      // median is what the import is divided by. The warm in-process median is printed beside it.
      const cold: { cpu: number; seconds: number }[] = [];
      for (let i = 0; i < 3; i++) cold.push(await coldBaselineCpu(file));
      cold.sort((a, b) => a.cpu - b.cpu);
      const { seconds: baseS, cpu: baseCpu } = cold[1]!; // three runs
      console.log(
        `raw baseline (readline + JSON.parse), median of 3 fresh processes, as the import runs: ${fmt(lines / baseS, 0)} lines/s, ` +
          `${fmt(mbs / baseS, 1)} MB/s wall; ${fmt(mbs / baseCpu, 1)} MB/s of CPU time (the three: ${cold.map((r) => fmt(mbs / r.cpu, 1)).join(', ')} MB/s); ` +
          `in one warm process, median of 3: ${fmt(mbs / warmCpu, 1)} MB/s of CPU time (the three: ${runs.map((r) => fmt(mbs / r.cpu, 1)).join(', ')} MB/s)`,
      );

      // The import runs in a fresh process, so its peak RSS is the importer's and not the generator's or the baseline's.
      const m = await importInChild(dir, file);
      console.log(
        `import: ${fmt(gen.lines / m.seconds, 0)} lines/s, ${fmt(mbs / m.seconds, 1)} MB/s ` +
          `(${fmt(m.seconds / baseS, 2)}x the raw baseline's time); ${fmt(mbs / m.cpu, 1)} MB/s of CPU time ` +
          `(${fmt(m.cpu / baseCpu, 2)}x the baseline's CPU time, ${fmt(m.cpu / warmCpu, 2)}x the warm one's); ` +
          `${m.turns} turns, ${m.contexts} context rows, ${m.skipped} skipped`,
      );
      const floorCpu = baseCpu + m.turnRowsCpu;
      console.log(
        `floor (the raw baseline + the same turn rows inserted, 50 per INSERT, with their indexes and trigram FTS): ${fmt(floorCpu / baseCpu, 2)}x ` +
          `the baseline's CPU time; the import costs ${fmt(m.cpu / floorCpu, 2)}x its floor. Aim: the import <= 5x the baseline`,
      );
      console.log(
        `peak memory of the importing process: RSS ${fmt(m.peakRss, 0)} MB (${fmt(m.rssBefore, 0)} MB before the import started), ` +
          `of which anonymous ${m.peakAnon === null ? 'n/a' : `${fmt(m.peakAnon, 0)} MB`} (the rest is memory-mapped database pages, ` +
          `reclaimable); JS heap + external ${fmt(m.peakHeap, 0)} MB. Aim: < 200 MB whatever the size`,
      );

      // The same entries in OpenClaw's SQLite store: rows read in batches, zstd rows decompressed (fzstd).
      const stateDir = path.join(dir, 'state');
      const store = await buildAgentStore(file, stateDir);
      const sqliteWs = path.join(dir, 'sqlite-workspace');
      fs.mkdirSync(sqliteWs);
      const q = await importInChild(sqliteWs, stateDir);
      console.log(
        `import from the SQLite store (${store.rows} rows, ${store.compressed} zstd): ${fmt(store.rows / q.seconds, 0)} rows/s; ` +
          `${fmt(q.cpu / m.cpu, 2)}x the CPU time of the same transcript as a file (${fmt(q.cpu / baseCpu, 2)}x the raw baseline's); ` +
          `${q.turns} turns, ${q.skipped} skipped; peak RSS ${fmt(q.peakRss, 0)} MB, anonymous ${q.peakAnon === null ? 'n/a' : `${fmt(q.peakAnon, 0)} MB`}`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};
