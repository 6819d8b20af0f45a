// What a fleet export folder has taken so far, kept beside the data (`_fleet/state.db`), so a later
// run adds only what is new, a session keeps its split forever, and a record two agents share is
// written once. Parts of a run that never committed are swept on the next start.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { DB } from '../db/connection';

export const FLEET_STATE_DIR = '_fleet';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, at INTEGER NOT NULL, exporter TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS sessions (session_id TEXT PRIMARY KEY, split TEXT NOT NULL CHECK (split IN ('train', 'validation'))) STRICT;
CREATE TABLE IF NOT EXISTS samples (
  agent TEXT NOT NULL, sample_id TEXT NOT NULL, record_hash TEXT NOT NULL, run_id TEXT NOT NULL,
  folded INTEGER NOT NULL CHECK (folded IN (0, 1)), PRIMARY KEY (agent, sample_id)) STRICT;
CREATE INDEX IF NOT EXISTS samples_run ON samples(run_id);
CREATE TABLE IF NOT EXISTS records (record_hash TEXT PRIMARY KEY, agent TEXT NOT NULL, sample_id TEXT NOT NULL, run_id TEXT NOT NULL) STRICT;
CREATE INDEX IF NOT EXISTS records_run ON records(run_id);
`;

export interface TakenSample {
  agent: string;
  sampleId: string;
  recordHash: string;
  folded: boolean;
  sessionId: string;
  split: 'train' | 'validation';
}

/**
 * A run's rows are written as it goes, under its id, so memory stays flat however large the fleet;
 * they count only once the run's own row exists (commitRun). A run that never committed is swept.
 */
export interface FleetState {
  db: DB;
  splitOf(sessionId: string): 'train' | 'validation' | undefined;
  isExported(agent: string, sampleId: string): boolean;
  /** The copy that already holds this record (in an earlier run or earlier in this one), if any. */
  holderOf(recordHash: string): { agent: string; sample_id: string } | undefined;
  take(runId: string, t: TakenSample): void;
  /** Groups a member's rows in one transaction. */
  inTransaction<T>(fn: () => Promise<T>): Promise<T>;
  close(): void;
}

export function openFleetState(outDir: string): FleetState {
  const dir = path.join(outDir, FLEET_STATE_DIR);
  fs.mkdirSync(dir, { recursive: true });
  const db = new Database(path.join(dir, 'state.db'));
  db.pragma('journal_mode = WAL');
  db.exec(SCHEMA);
  const split = db.prepare('SELECT split FROM sessions WHERE session_id = ?').pluck();
  const exported = db.prepare('SELECT 1 FROM samples WHERE agent = ? AND sample_id = ?').pluck();
  const holder = db.prepare('SELECT agent, sample_id FROM records WHERE record_hash = ?');
  const insertSession = db.prepare('INSERT OR IGNORE INTO sessions (session_id, split) VALUES (?, ?)');
  const insertSample = db.prepare('INSERT OR IGNORE INTO samples (agent, sample_id, record_hash, run_id, folded) VALUES (?, ?, ?, ?, ?)');
  const insertRecord = db.prepare('INSERT OR IGNORE INTO records (record_hash, agent, sample_id, run_id) VALUES (?, ?, ?, ?)');
  return {
    db,
    splitOf: (id) => split.get(id) as 'train' | 'validation' | undefined,
    isExported: (agent, sampleId) => exported.get(agent, sampleId) !== undefined,
    holderOf: (hash) => holder.get(hash) as { agent: string; sample_id: string } | undefined,
    take(runId, t) {
      insertSession.run(t.sessionId, t.split);
      insertSample.run(t.agent, t.sampleId, t.recordHash, runId, t.folded ? 1 : 0);
      if (!t.folded) insertRecord.run(t.recordHash, t.agent, t.sampleId, runId);
    },
    async inTransaction(fn) {
      db.exec('BEGIN IMMEDIATE');
      try {
        const value = await fn();
        db.exec('COMMIT');
        return value;
      } catch (e) {
        db.exec('ROLLBACK');
        throw e;
      }
    },
    close: () => db.close(),
  };
}

/** Marks a finished run: after this, its rows and parts are part of the dataset. */
export function commitRun(state: FleetState, run: { id: string; at: number; exporter: string }): void {
  state.db.prepare('INSERT INTO runs (id, at, exporter) VALUES (?, ?, ?)').run(run.id, run.at, run.exporter);
}

const PART = /^part-([0-9A-Z]{26})\.parquet(?:\.partial)?$/;

/** Removes the rows and parts of runs that never committed (a crash between writing and committing). */
export function sweepUncommittedParts(state: FleetState, outDir: string): string[] {
  state.db.exec('DELETE FROM samples WHERE run_id NOT IN (SELECT id FROM runs); DELETE FROM records WHERE run_id NOT IN (SELECT id FROM runs)');
  const committed = new Set(state.db.prepare('SELECT id FROM runs').pluck().all() as string[]);
  const removed: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && e.name !== FLEET_STATE_DIR) walk(p);
      const m = e.isFile() ? PART.exec(e.name) : null;
      if (m && (!committed.has(m[1]!) || e.name.endsWith('.partial'))) {
        fs.rmSync(p, { force: true });
        removed.push(p);
      }
    }
  };
  if (fs.existsSync(outDir)) walk(outDir);
  return removed;
}
