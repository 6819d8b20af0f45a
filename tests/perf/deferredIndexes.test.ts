// A collection that loads in bulk sets aside the indexes of dataset_samples whose keys are random with
// respect to the order samples are stored in, and builds them again at its end (issue 16: kept up row by
// row they were the largest part of what a collection wrote). These tests hold the run to that, the
// indexes to the definitions they had, a small run on a large table to keeping them, and a run that
// fails, is cancelled or crashes to leaving no index missing for good.
import { describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../bench/dataset/workspace';
import { jobWorkersStarted } from '../../src/api/jobs/runner';
import { createAppRuntime } from '../../src/api/runtime';
import { openWorkspaceDatabase, writeTx, type DB } from '../../src/core/db/connection';
import { deferIndexes } from '../../src/core/db/repositories/deferredIndexes';
import { collectSamples } from '../../src/core/dataset';
import { explain } from '../helpers/db';
import { tempWorkspace } from '../helpers/workspace';

const SET_ASIDE = ['idx_samples_cluster_filters', 'idx_samples_correction', 'idx_samples_quality', 'idx_samples_session'];

const indexSql = (db: DB) =>
  db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'dataset_samples' ORDER BY name").all() as {
    name: string;
    sql: string | null;
  }[];
const present = (db: DB) => new Set(indexSql(db).map((i) => i.name));
const recorded = (db: DB) => db.prepare('SELECT name FROM deferred_indexes ORDER BY name').pluck().all();
const timesOf = (db: DB) => db.prepare('SELECT created_at FROM memory_gate_decisions ORDER BY created_at').pluck().all() as number[];

/** Collects in transactions of `batchSize` decisions and notes which indexes exist after each one. */
async function collectWatching(db: DB, dir: string, opts: { until?: number } = {}) {
  const seen: Set<string>[] = [];
  const result = await collectSamples(
    // the decisions step only: the rebuild at the end reports its own progress, with indexes coming back
    { db, workspaceDir: dir, progress: (done, _total, step) => step === 'decisions' && done > 0 && seen.push(present(db)) },
    { autoApprove: true, batchSize: 200, ...opts },
  );
  return { result, seen };
}

describe('indexes set aside while a collection loads in bulk', () => {
  it('sets them aside in a run that fills the table and builds them again with the same definitions', async () => {
    const dir = tempWorkspace();
    const db = buildWorkspace(dir, 1200);
    try {
      const before = indexSql(db);
      const { result, seen } = await collectWatching(db, dir);
      expect(result.addedTotal).toBeGreaterThan(2000);
      expect(seen.length).toBeGreaterThan(3);
      for (const names of seen) for (const name of SET_ASIDE) expect(names.has(name)).toBe(false);
      // every other index of the table is kept up throughout
      for (const names of seen) expect(names.size).toBe(before.length - SET_ASIDE.length);
      expect(indexSql(db)).toEqual(before);
      expect(recorded(db)).toEqual([]);
      expect(explain(db, 'SELECT id FROM dataset_samples WHERE cluster_id = ?', 'c')).toMatch(/INDEX idx_samples_cluster_filters/);
      expect(explain(db, 'SELECT id FROM dataset_samples WHERE session_id = ?', 's')).toMatch(/INDEX idx_samples_session/);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });

  it('keeps them up in a run that adds a little to a table holding more samples than its window has decisions', async () => {
    const dir = tempWorkspace();
    const db = buildWorkspace(dir, 1200);
    try {
      const times = timesOf(db);
      const first = await collectWatching(db, dir, { until: times[1000]! });
      expect(first.seen.some((names) => !names.has('idx_samples_cluster_filters'))).toBe(true);
      const second = await collectWatching(db, dir);
      expect(second.result.addedTotal).toBeGreaterThan(300);
      expect(second.seen.length).toBeGreaterThan(0);
      for (const names of second.seen) for (const name of SET_ASIDE) expect(names.has(name)).toBe(true);
    } finally {
      db.close();
    }
  });

  it('builds them again when a run fails or is cancelled', async () => {
    const dir = tempWorkspace();
    const db = buildWorkspace(dir, 1200);
    try {
      const before = indexSql(db);
      const failing = collectSamples(
        {
          db,
          workspaceDir: dir,
          progress: (done) => {
            if (done > 400) throw new Error('the curator closed the window');
          },
        },
        { autoApprove: true, batchSize: 200 },
      );
      await expect(failing).rejects.toThrow('the curator closed the window');
      expect(indexSql(db)).toEqual(before);
      expect(recorded(db)).toEqual([]);

      const abort = new AbortController();
      const cancelled = await collectSamples(
        { db, workspaceDir: dir, signal: abort.signal, progress: (done) => done > 400 && abort.abort() },
        { autoApprove: true, batchSize: 200 },
      );
      expect(cancelled.cancelled).toBe(true);
      expect(indexSql(db)).toEqual(before);
      expect(recorded(db)).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('builds the indexes a crashed run left recorded at the next collection and at the next open', async () => {
    const dir = tempWorkspace();
    let db = buildWorkspace(dir, 300);
    await collectSamples({ db, workspaceDir: dir }, { autoApprove: true });
    const before = indexSql(db);
    // a run that set the indexes aside and died before building them again; the next run adds too
    // little to set anything aside itself
    writeTx(db, () => deferIndexes(db, SET_ASIDE));
    db.close();

    db = openWorkspaceDatabase(dir).db;
    const workersBefore = jobWorkersStarted();
    expect([...present(db)].filter((n) => SET_ASIDE.includes(n))).toEqual([]);
    expect(recorded(db)).toEqual(SET_ASIDE);
    // a dry run changes nothing, this included
    await collectSamples({ db, workspaceDir: dir }, { dryRun: true });
    expect(recorded(db)).toEqual(SET_ASIDE);
    await collectSamples({ db, workspaceDir: dir }, { autoApprove: true });
    expect(indexSql(db)).toEqual(before);
    expect(recorded(db)).toEqual([]);

    writeTx(db, () => deferIndexes(db, SET_ASIDE));
    db.close();
    // the app's open: built in a job worker, while main goes on answering
    const runtime = createAppRuntime({ mode: 'web', stateDir: tempWorkspace(), log: { warn: () => undefined } });
    try {
      runtime.session.open(dir);
      expect(recorded(runtime.session.db)).toEqual(SET_ASIDE);
      await runtime.services.ready();
      await expect.poll(() => jobWorkersStarted(), { timeout: 30_000 }).toBeGreaterThan(workersBefore);
      await expect.poll(() => recorded(runtime.session.db), { timeout: 60_000 }).toEqual([]);
      expect(indexSql(runtime.session.db)).toEqual(before);
    } finally {
      await runtime.close();
    }
  });
});
