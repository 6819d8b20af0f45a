// Fleet export: many workspaces into one hive-partitioned Parquet dataset, read back with DuckDB.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fleetExport, type FleetExportResult } from '../../src/core/fleet/fleet';
import { tempWorkspace } from '../helpers/workspace';
import { corruptWorkspace, curatedWorkspace, duck, readOnly } from './helpers';

interface Row {
  agent: string;
  workspace: string;
  split: string;
  session_id: string;
  sample_id: string;
  decision_id: string | null;
  record_hash: string;
  export_id: string;
  exporter_version: string;
  output: string;
  n_messages: string;
}

const root = tempWorkspace('reflection-fleet-');
const out = path.join(tempWorkspace('reflection-fleet-out-'), 'dataset');
let first: FleetExportResult;

async function rows(): Promise<Row[]> {
  const d = await duck();
  return d.all<Row>(
    `SELECT agent, workspace, split, session_id, sample_id, decision_id, record_hash, export_id, exporter_version, output,
            len(messages) AS n_messages
     FROM read_parquet('${out}/agent=*/split=*/*.parquet', hive_partitioning = true)`,
  );
}

beforeAll(async () => {
  // agent-d repeats agent-a's seed: every record it holds is one agent-a already has.
  for (const [name, seed] of [
    ['agent-a', 1],
    ['agent-b', 2],
    ['agent-c', 3],
    ['agent-d', 1],
  ] as const) {
    await curatedWorkspace(path.join(root, name), seed);
  }
  corruptWorkspace(path.join(root, 'agent-broken'));
  first = await fleetExport({ root, outDir: out });
}, 240_000);

describe('fleet export', () => {
  it('reports the corrupt workspace and exports the rest', () => {
    expect(first.skipped).toHaveLength(1);
    expect(first.skipped[0]!.dir).toContain('agent-broken');
    expect(first.skipped[0]!.kind).toBe('corrupt');
    expect(first.members.map((m) => m.agent)).toEqual(['agent-a', 'agent-b', 'agent-c', 'agent-d']);
  });

  it('has the counts per agent and split that the run reported', async () => {
    const all = await rows();
    expect(all.length).toBe(first.added);
    expect(first.added).toBeGreaterThan(20);
    for (const m of first.members) {
      expect(all.filter((r) => r.agent === m.agent && r.split === 'train').length).toBe(m.train);
      expect(all.filter((r) => r.agent === m.agent && r.split === 'validation').length).toBe(m.validation);
    }
    expect(all.some((r) => r.split === 'validation')).toBe(true);
    // chat formats keep their message lists as nested lists of structs
    expect(all.every((r) => Number(r.n_messages) >= 2)).toBe(true);
  });

  it('keeps a record two agents share once: the copy from the first agent wins', async () => {
    const all = await rows();
    const hashes = all.map((r) => r.record_hash);
    expect(new Set(hashes).size).toBe(hashes.length);
    const d = first.members.find((m) => m.agent === 'agent-d')!;
    expect(d.added).toBe(0);
    expect(d.folded).toBeGreaterThan(0);
  });

  it('never puts one session on both sides of the split', async () => {
    const all = await rows();
    const sides = new Map<string, Set<string>>();
    for (const r of all) sides.set(r.session_id, (sides.get(r.session_id) ?? new Set()).add(r.split));
    expect([...sides.values()].every((s) => s.size === 1)).toBe(true);
  });

  it('gives every row a lineage that points at a real sample', async () => {
    const all = await rows();
    const dbs = new Map<string, ReturnType<typeof readOnly>>();
    try {
      for (const r of all) {
        expect(r.export_id).toBe(first.runId);
        expect(r.exporter_version).toMatch(/^reflection-workbench /);
        let db = dbs.get(r.workspace);
        if (!db) dbs.set(r.workspace, (db = readOnly(r.workspace)));
        const s = db.prepare('SELECT decision_id, annotation_status FROM dataset_samples WHERE id = ?').get(r.sample_id) as
          { decision_id: string | null; annotation_status: string } | undefined;
        expect(s, `${r.agent}/${r.sample_id}`).toBeDefined();
        expect(s!.decision_id).toBe(r.decision_id);
        expect(s!.annotation_status).toBe('approved');
      }
    } finally {
      for (const db of dbs.values()) db.close();
    }
  });

  it('writes a manifest with checksums and a card whose configs glob the parts', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(manifest.runs).toHaveLength(1);
    for (const f of manifest.runs[0].files) {
      expect(fs.statSync(path.join(out, f.path)).size).toBe(f.bytes);
      expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    const card = fs.readFileSync(path.join(out, 'README.md'), 'utf8');
    expect(card).toContain('path: "agent=*/split=train/*.parquet"');
  });

  it('a second run after a sixth workspace joins adds only its rows and moves nothing', async () => {
    const before = await rows();
    const splitBefore = new Map(before.map((r) => [r.session_id, r.split]));
    const filesBefore = new Map(first.files.map((f) => [f.path, f.sha256]));
    await curatedWorkspace(path.join(root, 'agent-e'), 5);
    const second = await fleetExport({ root, outDir: out });
    expect(second.members.filter((m) => m.agent !== 'agent-e').every((m) => m.added === 0)).toBe(true);
    const e = second.members.find((m) => m.agent === 'agent-e')!;
    expect(e.added).toBeGreaterThan(0);
    expect(second.files.every((f) => f.agent === 'agent-e')).toBe(true);
    const after = await rows();
    expect(after.length).toBe(before.length + e.added);
    for (const r of after) if (splitBefore.has(r.session_id)) expect(r.split).toBe(splitBefore.get(r.session_id));
    for (const [p, sha] of filesBefore) expect(fs.existsSync(path.join(out, p)) && sha).toBe(sha);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(manifest.runs).toHaveLength(2);
  }, 120_000);

  it('sweeps the parts of a run that never committed', async () => {
    const orphan = path.join(out, 'agent=agent-a', 'split=train', 'part-01ARZ3NDEKTSV4RRFFQ69G5FAV.parquet');
    fs.writeFileSync(orphan, 'half a file');
    const third = await fleetExport({ root, outDir: out });
    expect(third.sweptParts).toBe(1);
    expect(fs.existsSync(orphan)).toBe(false);
    expect(third.added).toBe(0);
  }, 120_000);
});
