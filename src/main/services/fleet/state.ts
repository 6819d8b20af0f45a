// What a fleet export folder has taken so far, kept beside the data (`_fleet/state.db`), so a later
// run adds only what is new, a session keeps its split forever, and a record two agents share is
// written once. Parts of a run that never committed are swept on the next start.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { DB } from '../../db/connection';

export const FLEET_STATE_DIR = '_fleet';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, at INTEGER NOT NULL, exporter TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS sessions (session_id TEXT PRIMARY KEY, split TEXT NOT NULL CHECK (split IN ('train', 'validation'))) STRICT;
CREATE TABLE IF NOT EXISTS samples (
  agent TEXT NOT NULL, sample_id TEXT NOT NULL, record_hash TEXT NOT NULL, run_id TEXT NOT NULL,
  folded INTEGER NOT NULL CHECK (folded IN (0, 1)), PRIMARY KEY (agent, sample_id)) STRICT;
CREATE TABLE IF NOT EXISTS records (record_hash TEXT PRIMARY KEY, agent TEXT NOT NULL, sample_id TEXT NOT NULL) STRICT;
`;

export interface FleetState {
  db: DB;
  splitOf(sessionId: string): 'train' | 'validation' | undefined;
  isExported(agent: string, sampleId: string): boolean;
  /** The copy that already holds this record, if any. */
  holderOf(recordHash: string): { agent: string; sample_id: string } | undefined;
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
  return {
    db,
    splitOf: (id) => split.get(id) as 'train' | 'validation' | undefined,
    isExported: (agent, sampleId) => exported.get(agent, sampleId) !== undefined,
    holderOf: (hash) => holder.get(hash) as { agent: string; sample_id: string } | undefined,
    close: () => db.close(),
  };
}

export interface CommittedSample {
  agent: string;
  sampleId: string;
  recordHash: string;
  folded: boolean;
  sessionId: string;
  split: 'train' | 'validation';
}

/** Records a finished run in one transaction: after this, its parts are part of the dataset. */
export function commitRun(state: FleetState, run: { id: string; at: number; exporter: string }, taken: readonly CommittedSample[]): void {
  const db = state.db;
  const insertRun = db.prepare('INSERT INTO runs (id, at, exporter) VALUES (?, ?, ?)');
  const insertSession = db.prepare('INSERT OR IGNORE INTO sessions (session_id, split) VALUES (?, ?)');
  const insertSample = db.prepare('INSERT OR IGNORE INTO samples (agent, sample_id, record_hash, run_id, folded) VALUES (?, ?, ?, ?, ?)');
  const insertRecord = db.prepare('INSERT OR IGNORE INTO records (record_hash, agent, sample_id) VALUES (?, ?, ?)');
  db.transaction(() => {
    insertRun.run(run.id, run.at, run.exporter);
    for (const t of taken) {
      insertSession.run(t.sessionId, t.split);
      insertSample.run(t.agent, t.sampleId, t.recordHash, run.id, t.folded ? 1 : 0);
      if (!t.folded) insertRecord.run(t.recordHash, t.agent, t.sampleId);
    }
  })();
}

const PART = /^part-([0-9A-Z]{26})\.parquet(?:\.partial)?$/;

/** Removes parts of runs that never committed (a crash between writing and committing). */
export function sweepUncommittedParts(state: FleetState, outDir: string): string[] {
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
