// What a fleet export folder has taken so far, kept beside the data (`_fleet/state.db`), so a later
// run adds only what is new, a session keeps its split forever, and a record two agents share is
// written once. Parts of a run that never committed are swept on the next start.
import fs from 'node:fs';
import path from 'node:path';
import type { DB } from '../db/connection';
import {
  deleteUncommittedRows,
  findRecordHolder,
  findSessionSplit,
  insertFleetRun,
  insertTakenSample,
  isSampleExported,
  openFleetStateDatabase,
  type TakenRow,
} from '../db/repositories/fleetState';
import type { DataSplit } from '../../shared/domain';

export const FLEET_STATE_DIR = '_fleet';

/** A sample a run takes: its copy, and its session's split. */

/**
 * A run's rows are written as it goes, under its id, so memory stays flat however large the fleet;
 * they count only once the run's own row exists (commitRun). A run that never committed is swept.
 */
export interface FleetState {
  db: DB;
  splitOf(sessionId: string): DataSplit | undefined;
  isExported(agent: string, sampleId: string): boolean;
  /** The copy that already holds this record (in an earlier run or earlier in this one), if any. */
  holderOf(recordHash: string): { agent: string; sample_id: string } | undefined;
  take(runId: string, t: TakenRow): void;
  /** Groups a member's rows in one transaction. */
  inTransaction<T>(fn: () => Promise<T>): Promise<T>;
  close(): void;
}

export function openFleetState(outDir: string): FleetState {
  const dir = path.join(outDir, FLEET_STATE_DIR);
  fs.mkdirSync(dir, { recursive: true });
  const db = openFleetStateDatabase(path.join(dir, 'state.db'));
  return {
    db,
    splitOf: (id) => findSessionSplit(db, id),
    isExported: (agent, sampleId) => isSampleExported(db, agent, sampleId),
    holderOf: (hash) => findRecordHolder(db, hash),
    take: (runId, t) => insertTakenSample(db, runId, t),
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
  insertFleetRun(state.db, run);
}

const PART = /^part-([0-9A-Z]{26})\.parquet(?:\.partial)?$/;

/** Removes the rows and parts of runs that never committed (a crash between writing and committing). */
export function sweepUncommittedParts(state: FleetState, outDir: string): string[] {
  const committed = deleteUncommittedRows(state.db);
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
