// A fleet export folder's own small database (`_fleet/state.db`): the runs that committed, each
// session's split, the samples taken per agent and the records already written (one copy each).
import Database from 'better-sqlite3';
import type { DataSplit } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

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

/** Opens (creating when new) the fleet state database at `file`. */
export function openFleetStateDatabase(file: string): DB {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(SCHEMA);
  return db;
}

export function findSessionSplit(db: DB, sessionId: string): DataSplit | undefined {
  return stmt(db, 'SELECT split FROM sessions WHERE session_id = ?').pluck().get(sessionId) as DataSplit | undefined;
}

export function isSampleExported(db: DB, agent: string, sampleId: string): boolean {
  return stmt(db, 'SELECT 1 FROM samples WHERE agent = ? AND sample_id = ?').get(agent, sampleId) !== undefined;
}

export function findRecordHolder(db: DB, recordHash: string): { agent: string; sample_id: string } | undefined {
  return stmt<{ agent: string; sample_id: string }>(db, 'SELECT agent, sample_id FROM records WHERE record_hash = ?').get(recordHash);
}

export interface TakenRow {
  agent: string;
  sampleId: string;
  recordHash: string;
  /** Folded: another copy already holds the record, so no record row of its own. */
  folded: boolean;
  sessionId: string;
  split: DataSplit;
}

/** Records a sample taken by the run (its session's split is kept from the first time it is seen). */
export function insertTakenSample(db: DB, runId: string, t: TakenRow): void {
  stmt(db, 'INSERT OR IGNORE INTO sessions (session_id, split) VALUES (?, ?)').run(t.sessionId, t.split);
  stmt(db, 'INSERT OR IGNORE INTO samples (agent, sample_id, record_hash, run_id, folded) VALUES (?, ?, ?, ?, ?)').run(
    t.agent,
    t.sampleId,
    t.recordHash,
    runId,
    t.folded ? 1 : 0,
  );
  if (!t.folded)
    stmt(db, 'INSERT OR IGNORE INTO records (record_hash, agent, sample_id, run_id) VALUES (?, ?, ?, ?)').run(
      t.recordHash,
      t.agent,
      t.sampleId,
      runId,
    );
}

export function insertFleetRun(db: DB, run: { id: string; at: number; exporter: string }): void {
  stmt(db, 'INSERT INTO runs (id, at, exporter) VALUES (?, ?, ?)').run(run.id, run.at, run.exporter);
}

/** Deletes the sample and record rows of runs that never committed; returns the committed run ids. */
export function deleteUncommittedRows(db: DB): Set<string> {
  db.exec('DELETE FROM samples WHERE run_id NOT IN (SELECT id FROM runs); DELETE FROM records WHERE run_id NOT IN (SELECT id FROM runs)');
  return new Set(stmt(db, 'SELECT id FROM runs').pluck().all() as string[]);
}
