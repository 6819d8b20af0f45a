// The measured half of the dataset benchmark, run in a fresh process per measurement so that peak RSS,
// CPU time and bytes written (/proc/self/io wchar) belong to that one job and nothing else:
//   collect <workspace>          collection, then the floor on the same decisions and samples
// (Exports are measured the same way by bench/sections/42-exports.ts, in a child of its own.)
// The parent (bench/sections/40-dataset.ts) forks this file and prints what it sends back.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { cpuSeconds, liveHeapProbe, maxRssMb, writtenBytes } from '../util';
import { dbPathFor, openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { collectSamples } from '../../src/core/dataset';

export interface CollectChildResult {
  decisions: number;
  samples: number;
  duplicates: number;
  wallS: number;
  cpuS: number;
  /** bytes passed to write() during collection, including the final checkpoint */
  wchar: number | null;
  /** growth of the database file (after a TRUNCATE checkpoint) */
  growth: number;
  peakRssMb: number;
  liveHeapMb: number[];
  floor: { cpuS: number; readCpuS: number; insertCpuS: number; wallS: number; rows: number; wchar: number | null };
}

function dbBytes(file: string): number {
  let n = 0;
  for (const f of [file, `${file}-wal`]) if (fs.existsSync(f)) n += fs.statSync(f).size;
  return n;
}

const FLOOR_READ = `SELECT d.seq, d.id, d.turn_id, d.session_id, d.decision, d.reason, d.candidate_fact, d.raw_response, d.created_at,
    t.turn_number, t.user_message_content, t.agent_message_content, t.created_at AS turn_created_at,
    a.id AS audit_id, a.target_file, a.candidate_fact AS audit_fact, a.status, a.reason AS audit_reason, a.created_at AS audit_at,
    (SELECT c.id FROM behavior_corrections c WHERE c.audit_id = a.id ORDER BY c.corrected_at DESC, c.id DESC LIMIT 1) AS correction_id
  FROM memory_gate_decisions d JOIN conversation_turns t ON t.id = d.turn_id
  LEFT JOIN write_guardian_audit a ON a.decision_id = d.id AND a.source = 'plugin'
  WHERE d.seq > ? ORDER BY d.seq LIMIT 500`;

/**
 * The floor collection is compared with: read the same decisions with one keyset join (decision, turn,
 * audit, latest correction), and insert the sample rows collection produced into a table with only a
 * primary key, in transactions of 5,000. Only those two parts are timed (reading the produced rows back
 * out of dataset_samples is not).
 */
function measureFloor(db: DB, dir: string): CollectChildResult['floor'] {
  const read = db.prepare(FLOOR_READ).raw();
  const t0 = performance.now();
  let c = process.cpuUsage();
  let after = 0;
  for (;;) {
    const rows = read.all(after) as unknown[][];
    if (!rows.length) break;
    after = rows[rows.length - 1]![0] as number;
  }
  const readCpuS = cpuSeconds(c);
  const readWall = performance.now() - t0;

  const cols = (db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck().all('dataset_samples') as string[]).filter(
    (n) => n !== 'id',
  );
  const file = path.join(dir, 'floor.db');
  fs.rmSync(file, { force: true });
  const floor = new Database(file);
  floor.pragma('journal_mode = WAL');
  floor.pragma('synchronous = NORMAL');
  floor.exec(`CREATE TABLE floor_samples (id TEXT PRIMARY KEY, ${cols.map((n) => `"${n}"`).join(', ')})`);
  const insert = floor.prepare(`INSERT INTO floor_samples VALUES (${['?', ...cols.map(() => '?')].join(', ')})`);
  const source = db
    .prepare(`SELECT rowid, id, ${cols.map((n) => `"${n}"`).join(', ')} FROM dataset_samples WHERE rowid > ? ORDER BY rowid LIMIT 5000`)
    .raw();
  const tx = floor.transaction((rows: unknown[][]) => {
    for (const r of rows) insert.run(r.slice(1));
  });
  let insertCpuS = 0;
  let insertWall = 0;
  let wchar: number | null = 0;
  let rows = 0;
  let last = 0;
  for (;;) {
    const page = source.all(last) as unknown[][];
    if (!page.length) break;
    last = page[page.length - 1]![0] as number;
    const w0 = writtenBytes();
    const t1 = performance.now();
    c = process.cpuUsage();
    tx(page);
    insertCpuS += cpuSeconds(c);
    insertWall += performance.now() - t1;
    const w1 = writtenBytes();
    wchar = w0 === null || w1 === null || wchar === null ? null : wchar + (w1 - w0);
    rows += page.length;
  }
  floor.close();
  fs.rmSync(file, { force: true });
  fs.rmSync(`${file}-wal`, { force: true });
  fs.rmSync(`${file}-shm`, { force: true });
  return { cpuS: readCpuS + insertCpuS, readCpuS, insertCpuS, wallS: (readWall + insertWall) / 1000, rows, wchar };
}

async function collectMain(dir: string): Promise<CollectChildResult> {
  const { db } = openWorkspaceDatabase(dir);
  const dbFile = dbPathFor(dir);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const before = dbBytes(dbFile);
  const live = liveHeapProbe();
  const w0 = writtenBytes();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = await collectSamples({ db, workspaceDir: dir, progress: live.progress }, { autoApprove: true });
  db.pragma('wal_checkpoint(TRUNCATE)');
  const cpuS = cpuSeconds(c0) - live.cpuS();
  const wallS = (performance.now() - t0) / 1000;
  const w1 = writtenBytes();
  const peakRssMb = maxRssMb();
  const growth = dbBytes(dbFile) - before;
  const floor = measureFloor(db, dir);
  db.close();
  return {
    decisions: r.decisionsScanned,
    samples: r.addedTotal,
    duplicates: r.duplicates,
    wallS,
    cpuS,
    wchar: w0 === null || w1 === null ? null : w1 - w0,
    growth,
    peakRssMb,
    liveHeapMb: live.samples,
    floor,
  };
}

/** Runs one measurement in a fresh Node process and resolves with what it reports. */
export function runChild<T>(args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, args, {
      // the young generation the app's job worker has (src/api/jobs/runner.ts, JOB_LIMITS), where collection runs
      execArgv: ['--require', 'tsx/cjs', '--max-semi-space-size=4'],
      env: { ...process.env, REFLECTION_BENCH_DATASET_CHILD: '1' },
    });
    child.once('message', (m) => resolve(m as T));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`dataset bench child ${args[0]} exited with ${code}`)));
  });
}

if (process.env.REFLECTION_BENCH_DATASET_CHILD && process.send) {
  const [mode, dir] = process.argv.slice(2);
  if (mode !== 'collect' || !dir) throw new Error('dataset bench child: expected collect <workspace dir>');
  const job = collectMain(dir);
  job.then(
    (result) => process.send!(result, () => process.exit(0)),
    (e: Error) => {
      console.error(e);
      process.exit(1);
    },
  );
}
