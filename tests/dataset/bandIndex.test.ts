// The near-duplicate band index without a cascade (issue 16, migration 0176): band rows of deleted
// samples stay behind, yet lookups answer as the cascade did, and the next collection removes them;
// leaders whose rows a stopped run never wrote get them back from their stored signatures.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../bench/dataset/workspace';
import { collectSamples } from '../../src/core/dataset';
import { repairBandIndex } from '../../src/core/dataset/dedupe';
import { LSH_BANDS } from '../../src/core/dataset/similarity';
import { listBandLeaders } from '../../src/core/db/repositories/collectDedupe';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { tempWorkspace } from '../helpers/workspace';

const bandRows = (db: DB) =>
  db.prepare('SELECT band_key, sample_id FROM dataset_lsh_bands ORDER BY 1, 2').raw().all() as [number, string][];
const leaders = (db: DB) => db.prepare('SELECT count(*) FROM dataset_minhash').pluck().get() as number;
const generations = (db: DB) => db.prepare('SELECT DISTINCT gen FROM dataset_lsh_bands ORDER BY gen').pluck().all() as number[];
/** Each key's leaders as listBandLeaders must give them: ids in order, the first `limit`. */
function expectedLeaders(rows: [number, string][], limit: number): Map<number, string[]> {
  const byKey = new Map<number, string[]>();
  for (const [k, id] of rows) (byKey.get(k) ?? byKey.set(k, []).get(k)!).push(id);
  for (const ids of byKey.values()) ids.splice(0, ids.length, ...ids.sort().slice(0, limit));
  return byKey;
}

describe('band index', () => {
  it('has no cascade and no sample_id index, so band rows cost one primary-key entry', () => {
    const db = buildWorkspace(tempWorkspace(), 1);
    try {
      expect(db.prepare("SELECT count(*) FROM pragma_foreign_key_list('dataset_lsh_bands')").pluck().get()).toBe(0);
      expect(
        db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'dataset_lsh_bands' AND sql IS NOT NULL").all(),
      ).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('skips the rows of deleted samples in lookups, and the next collection removes them', async () => {
    const dir = tempWorkspace();
    const db = buildWorkspace(dir, 200);
    try {
      await collectSamples({ db, workspaceDir: dir }, { autoApprove: true });
      const complete = bandRows(db);
      expect(complete.length).toBe(leaders(db) * LSH_BANDS);
      // delete a third of the leaders' samples: their signatures cascade, their band rows stay
      const ids = db.prepare('SELECT sample_id FROM dataset_minhash ORDER BY sample_id').pluck().all() as string[];
      const gone = new Set(ids.filter((_, i) => i % 3 === 0));
      const del = db.prepare('DELETE FROM dataset_samples WHERE id = ?');
      db.transaction(() => gone.forEach((id) => del.run(id)))();
      expect(bandRows(db).length).toBe(complete.length);
      const key = complete.find(([, id]) => gone.has(id))![0];
      const expected = complete.filter(([k, id]) => k === key && !gone.has(id)).map(([, id]) => id);
      expect(listBandLeaders(db, key, 64)).toEqual(expected);

      db.transaction(() => repairBandIndex(db))();
      expect(bandRows(db)).toEqual(complete.filter(([, id]) => !gone.has(id)));
      expect(bandRows(db).length).toBe(leaders(db) * LSH_BANDS);
    } finally {
      db.close();
    }
  });

  it("rebuilds the rows a stopped run did not write, from the leaders' signatures", async () => {
    const dir = tempWorkspace();
    const db = buildWorkspace(dir, 200);
    try {
      await collectSamples({ db, workspaceDir: dir }, { autoApprove: true });
      const complete = bandRows(db);
      // a flush writes in key order: a run stopped mid-flush lacks the largest keys
      const cut = complete[Math.floor(complete.length * 0.7)]![0];
      db.prepare('DELETE FROM dataset_lsh_bands WHERE band_key >= ?').run(cut);
      expect(bandRows(db).length).toBeLessThan(complete.length);
      const added = db.transaction(() => repairBandIndex(db))();
      expect(added).toBeGreaterThan(0);
      expect(bandRows(db)).toEqual(complete);
      // complete again: the next repair is two counts and adds nothing
      expect(db.transaction(() => repairBandIndex(db))()).toBe(0);
    } finally {
      db.close();
    }
  });

  it("writes every leader's rows when the final flush spans several transactions", async () => {
    // 1,200 decisions give about 2,000 leaders, 32,000 band rows: two flush transactions of 20,000
    const dir = tempWorkspace();
    const db = buildWorkspace(dir, 1_200);
    try {
      await collectSamples({ db, workspaceDir: dir }, { autoApprove: true });
      const rows = bandRows(db);
      expect(rows.length).toBeGreaterThan(20_000);
      expect(rows.length).toBe(leaders(db) * LSH_BANDS);
      expect(new Set(rows.map(([k, id]) => `${k} ${id}`)).size).toBe(rows.length);
      // each leader has one row per band (the band index is the key's high bits)
      const bandsOf = new Map<string, Set<number>>();
      for (const [k, id] of rows) (bandsOf.get(id) ?? bandsOf.set(id, new Set()).get(id)!).add(Math.floor(k / 2 ** 32));
      expect([...bandsOf.values()].every((b) => b.size === LSH_BANDS)).toBe(true);
      expect(repairBandIndex(db)).toBe(0);
    } finally {
      db.close();
    }
  });

  it('appends each flush as a new generation, and lookups over generations answer as one table did', async () => {
    // one recorded workspace, copied: the same decisions, so the same sample ids
    const wholeDir = tempWorkspace();
    buildWorkspace(wholeDir, 300).close();
    const dir = tempWorkspace();
    fs.cpSync(wholeDir, dir, { recursive: true });
    const whole = openWorkspaceDatabase(wholeDir).db;
    const split = openWorkspaceDatabase(dir).db;
    try {
      await collectSamples({ db: whole, workspaceDir: wholeDir }, { autoApprove: true });
      // the same decisions in two runs: the second run's rows are a second generation
      const middle = split.prepare('SELECT created_at FROM memory_gate_decisions ORDER BY seq LIMIT 1 OFFSET 150').pluck().get() as number;
      await collectSamples({ db: split, workspaceDir: dir }, { autoApprove: true, until: middle });
      const first = bandRows(split);
      await collectSamples({ db: split, workspaceDir: dir }, { autoApprove: true });
      expect(generations(whole)).toEqual([0]);
      expect(generations(split)).toEqual([0, 1]);
      // the first generation is untouched: the second was appended after it
      expect(split.prepare('SELECT band_key, sample_id FROM dataset_lsh_bands WHERE gen = 0 ORDER BY 1, 2').raw().all()).toEqual(first);
      const rows = bandRows(whole);
      expect(bandRows(split)).toEqual(rows);
      const clusters = (db: DB) => db.prepare('SELECT id, cluster_id, fingerprint, labels FROM dataset_samples ORDER BY id').raw().all();
      expect(clusters(split)).toEqual(clusters(whole));
      for (const [key, ids] of expectedLeaders(rows, 3)) expect(listBandLeaders(split, key, 3)).toEqual(ids);
    } finally {
      whole.close();
      split.close();
    }
  });

  it('merges too many generations into one at the next repair, keeping every row', async () => {
    const dir = tempWorkspace();
    const db = buildWorkspace(dir, 200);
    try {
      await collectSamples({ db, workspaceDir: dir }, { autoApprove: true });
      const complete = bandRows(db);
      // spread the rows over 20 generations, as twenty small runs would have left them
      db.prepare('UPDATE dataset_lsh_bands SET gen = (band_key + unicode(substr(sample_id, -1))) % 20').run();
      expect(generations(db).length).toBe(20);
      const spread = expectedLeaders(complete, 64);
      const key = [...spread.keys()][0]!;
      expect(listBandLeaders(db, key, 64)).toEqual(spread.get(key));
      expect(db.transaction(() => repairBandIndex(db))()).toBe(0);
      expect(generations(db)).toEqual([20]);
      expect(bandRows(db)).toEqual(complete);
      // a stopped run after the merge: the repair adds the missing rows as a new generation, none twice
      const cut = complete[Math.floor(complete.length * 0.5)]![0];
      db.prepare('DELETE FROM dataset_lsh_bands WHERE band_key >= ?').run(cut);
      expect(db.transaction(() => repairBandIndex(db))()).toBeGreaterThan(0);
      expect(generations(db)).toEqual([20, 21]);
      expect(bandRows(db)).toEqual(complete);
    } finally {
      db.close();
    }
  });
});
