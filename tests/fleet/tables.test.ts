// export-tables: the recorded tables of several agents as day-partitioned Parquet, and the three
// queries docs/fleet.md shows, run in DuckDB and checked against the same figures from SQLite.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { correctWrite } from '../../src/core/guardian/corrections';
import { detectPii } from '../../src/core/pii';
import { exportTables, prepareTablesDir, ANALYTICS_TABLES } from '../../src/core/parquet/tables';
import { tempWorkspace } from '../helpers/workspace';
import { curatedWorkspace, duck, readOnly } from './helpers';

const root = tempWorkspace('reflection-tables-');
const out = path.join(tempWorkspace('reflection-tables-out-'), 'tables');
const agents = ['agent-a', 'agent-b', 'agent-c'];

/** The queries of docs/fleet.md, read from the document itself so the two cannot drift apart. */
function documentedQueries(): Map<string, string> {
  const doc = fs.readFileSync(path.resolve(__dirname, '../../docs/fleet.md'), 'utf8');
  const found = new Map<string, string>();
  for (const m of doc.matchAll(/<!-- query: ([\w-]+) -->\s*```sql\n([\s\S]*?)```/g)) found.set(m[1]!, m[2]!.replaceAll('TABLES', out));
  return found;
}

beforeAll(async () => {
  for (const [i, a] of agents.entries()) await curatedWorkspace(path.join(root, a), i + 11, 6);
  // a rolled-back write and a curator's correction, so the precision query has writes that were not kept
  const dirA = path.join(root, 'agent-a');
  const { db } = openWorkspaceDatabase(dirA);
  const written = db
    .prepare(`SELECT id FROM write_guardian_audit WHERE status = 'written' AND source = 'plugin' ORDER BY id LIMIT 2`)
    .pluck()
    .all() as string[];
  db.prepare(`UPDATE write_guardian_audit SET status = 'rolled_back' WHERE id = ?`).run(written[0]);
  correctWrite({ db, workspaceDir: dirA }, { auditId: written[1]!, status: 'refused', reason: 'not a lasting fact' });
  db.close();
  prepareTablesDir(out, ANALYTICS_TABLES, false);
  const members = agents.map((agent) => ({ db: readOnly(path.join(root, agent)), agent }));
  try {
    exportTables(members, { outDir: out });
  } finally {
    members.forEach((m) => m.db.close());
  }
}, 240_000);

describe('export-tables', () => {
  it('writes one folder per table, partitioned by day, with every row of every agent', async () => {
    const d = await duck();
    for (const [table, from] of [
      ['turns', 'conversation_turns'],
      ['decisions', 'memory_gate_decisions'],
      ['writes', 'write_guardian_audit'],
    ] as const) {
      expect(fs.readdirSync(path.join(out, table)).every((p) => /^day=\d{4}-\d{2}-\d{2}$/.test(p))).toBe(true);
      const counts = await d.all<{ agent: string; n: string }>(
        `SELECT agent, count(*) AS n FROM read_parquet('${out}/${table}/*/*.parquet') GROUP BY agent`,
      );
      for (const a of agents) {
        const db = readOnly(path.join(root, a));
        const n = (db.prepare(`SELECT count(*) AS n FROM ${from}`).get() as { n: number }).n;
        db.close();
        expect(Number(counts.find((c) => c.agent === a)?.n), `${table} of ${a}`).toBe(n);
      }
    }
  });

  it('gives every agent a file in every table, even a table it has no rows in', () => {
    for (const table of ANALYTICS_TABLES) {
      const files = fs
        .readdirSync(path.join(out, table), { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.parquet'));
      for (const a of agents)
        expect(
          files.some((f) => f.endsWith(`part-${a}.parquet`)),
          `${table} of ${a}`,
        ).toBe(true);
    }
  });

  it('redacts free text by default: no detected personal data is left in the turns', async () => {
    const d = await duck();
    const texts = await d.all<{ t: string }>(`SELECT user_message_content AS t FROM read_parquet('${out}/turns/*/*.parquet')`);
    const leaking = texts.filter((r) => detectPii(r.t).some((s) => !/^\[[A-Z_]+_\d+\]$/.test(s.value)));
    expect(leaking).toEqual([]);
    expect(texts.some((r) => /\[(EMAIL|PHONE)_1\]/.test(r.t))).toBe(true);
  });

  it('refuses to write into an existing export unless asked to overwrite', () => {
    expect(() => prepareTablesDir(out, ['turns'], false)).toThrow(/--overwrite/);
  });

  it('runs the three documented queries and gets the figures SQLite gives', async () => {
    const queries = documentedQueries();
    expect([...queries.keys()].sort()).toEqual(['file-churn', 'gate-precision-by-model', 'no-write-rate-by-week']);
    const d = await duck();

    // gate precision by model: write proposals whose write was kept (written, not rolled back, not corrected)
    const precision = await d.all<{ model: string; proposals: string; kept: string }>(queries.get('gate-precision-by-model')!);
    const expected = new Map<string, { proposals: number; kept: number }>();
    for (const a of agents) {
      const db = readOnly(path.join(root, a));
      const rowsOf = db
        .prepare(
          `SELECT d.llm_model AS model,
                  EXISTS (SELECT 1 FROM write_guardian_audit w WHERE w.decision_id = d.id AND w.status = 'written'
                          AND NOT EXISTS (SELECT 1 FROM behavior_corrections c WHERE c.audit_id = w.id)) AS kept
           FROM memory_gate_decisions d WHERE d.decision <> 'NO_WRITE'`,
        )
        .all() as { model: string; kept: number }[];
      db.close();
      for (const r of rowsOf) {
        const e = expected.get(r.model) ?? { proposals: 0, kept: 0 };
        e.proposals++;
        e.kept += r.kept;
        expected.set(r.model, e);
      }
    }
    expect(precision.map((p) => [p.model, Number(p.proposals), Number(p.kept)])).toEqual(
      [...expected.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([m, e]) => [m, e.proposals, e.kept]),
    );

    // file churn: written lines per memory file across agents
    const churn = await d.all<{ target_file: string; writes: string; lines_changed: string }>(queries.get('file-churn')!);
    const churnExpected = new Map<string, { writes: number; lines: number }>();
    for (const a of agents) {
      const db = readOnly(path.join(root, a));
      for (const r of db
        .prepare(
          `SELECT target_file AS f, count(*) AS n, sum(coalesce(lines_added, 0) + coalesce(lines_removed, 0)) AS l FROM write_guardian_audit WHERE status = 'written' GROUP BY f`,
        )
        .all() as { f: string; n: number; l: number }[]) {
        const e = churnExpected.get(r.f) ?? { writes: 0, lines: 0 };
        churnExpected.set(r.f, { writes: e.writes + r.n, lines: e.lines + r.l });
      }
      db.close();
    }
    for (const c of churn) {
      expect([Number(c.writes), Number(c.lines_changed)]).toEqual([
        churnExpected.get(c.target_file)!.writes,
        churnExpected.get(c.target_file)!.lines,
      ]);
    }
    expect(churn.length).toBe(churnExpected.size);

    // NO_WRITE rate per agent and week
    const rate = await d.all<{ agent: string; decisions: string; no_write: string }>(queries.get('no-write-rate-by-week')!);
    for (const a of agents) {
      const db = readOnly(path.join(root, a));
      const n = db.prepare(`SELECT count(*) AS n, sum(decision = 'NO_WRITE') AS nw FROM memory_gate_decisions`).get() as {
        n: number;
        nw: number;
      };
      db.close();
      const mine = rate.filter((r) => r.agent === a);
      expect(mine.reduce((s, r) => s + Number(r.decisions), 0)).toBe(n.n);
      expect(mine.reduce((s, r) => s + Number(r.no_write), 0)).toBe(n.nw);
    }
  });
});
