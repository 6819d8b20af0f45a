import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { generateDemoWorkspace, HOSTILE_SESSION_ID, type DemoSummary } from '../../src/core/demo';
import { AUDIT_STATUSES, GATE_DECISIONS, MEMORY_FILES } from '../../src/shared/domain';
import { recordExternalChanges } from '../../src/core/guardian/external';
import { tempWorkspace } from '../helpers/workspace';

const TABLES = [
  'sessions',
  'conversation_turns',
  'conversation_contexts',
  'memory_gate_decisions',
  'file_snapshots',
  'write_guardian_audit',
];

function contentHashes(db: DB): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of TABLES) {
    const h = crypto.createHash('sha256');
    for (const row of db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).iterate()) h.update(JSON.stringify(row));
    out[t] = h.digest('hex');
  }
  return out;
}

function open(dir: string) {
  return openWorkspaceDatabase(dir).db;
}

describe('demo workspace', () => {
  let ws: string;
  let summary: DemoSummary;
  let db: DB;
  beforeAll(() => {
    ws = tempWorkspace();
    summary = generateDemoWorkspace(ws, { seed: 7 });
    db = open(ws);
  });

  it('is generated quickly at the default size, with English and Chinese conversations and context windows', () => {
    expect(summary.elapsedMs).toBeLessThan(5000);
    expect(summary.turns).toBeGreaterThan(200);
    expect(summary.contextItems).toBeGreaterThan(summary.turns);
    const zh = db.prepare("SELECT count(*) FROM conversation_turns WHERE user_message_content GLOB '*[一-龥]*'").pluck().get() as number;
    const en = db
      .prepare("SELECT count(*) FROM conversation_turns WHERE user_message_content GLOB '*[a-z][a-z][a-z] [a-z]*'")
      .pluck()
      .get() as number;
    expect(zh).toBeGreaterThan(20);
    expect(en).toBeGreaterThan(20);
    // Context windows end with the turn's own user message and hold earlier messages of the session.
    const turn = db.prepare('SELECT id, user_message_content FROM conversation_turns WHERE turn_number = 5 LIMIT 1').get() as {
      id: string;
      user_message_content: string;
    };
    const ctx = db
      .prepare('SELECT role, message FROM conversation_contexts WHERE turn_id = ? ORDER BY sequence_number')
      .all(turn.id) as Array<{ role: string; message: string }>;
    expect(ctx.length).toBe(6);
    expect(ctx[ctx.length - 1]).toEqual({ role: 'user', message: turn.user_message_content });
    expect(ctx.map((c) => c.role)).toContain('agent');
  });

  it('has decisions of every kind with reasons and facts, and every write outcome', () => {
    const kinds = db
      .prepare(
        'SELECT decision, count(*) AS n, sum(candidate_fact IS NOT NULL) AS facts, sum(length(reason) > 0) AS reasons FROM memory_gate_decisions GROUP BY decision',
      )
      .all() as Array<{ decision: string; n: number; facts: number; reasons: number }>;
    expect(kinds.map((k) => k.decision).sort()).toEqual([...GATE_DECISIONS].sort());
    for (const k of kinds) {
      expect(k.reasons).toBe(k.n);
      expect(k.facts).toBe(k.decision === 'NO_WRITE' ? 0 : k.n);
    }
    const statuses = db.prepare('SELECT DISTINCT status FROM write_guardian_audit').pluck().all() as string[];
    for (const s of AUDIT_STATUSES.filter((s) => s !== 'rolled_back')) expect(statuses).toContain(s);
    expect(
      db.prepare("SELECT count(*) FROM write_guardian_audit WHERE status = 'refused' AND candidate_fact LIKE '%sk-proj-%'").pluck().get(),
    ).toBeGreaterThan(0);
  });

  it("writes really change the files, and each file's chain of snapshots ends in exactly the file on disk", () => {
    for (const file of MEMORY_FILES) {
      const onDisk = fs.readFileSync(path.join(ws, file), 'utf8');
      expect(onDisk).toMatch(/^# /);
      const chain = db
        .prepare(
          `SELECT b.content AS before, a2.content AS after FROM write_guardian_audit w
        JOIN file_snapshots b ON b.id = w.before_snapshot_id JOIN file_snapshots a2 ON a2.id = w.after_snapshot_id
        WHERE w.target_file = ? AND w.status = 'written' ORDER BY w.created_at, w.rowid`,
        )
        .all(file) as Array<{ before: string; after: string }>;
      expect(chain.length, file).toBeGreaterThan(0);
      for (let i = 1; i < chain.length; i++) expect(chain[i]!.before).toBe(chain[i - 1]!.after);
      for (const link of chain) expect(link.after).not.toBe(link.before);
      expect(chain.at(-1)?.after).toBe(onDisk);
    }
    // The guardian sees the files exactly as recorded: nothing to report as an outside edit.
    expect(recordExternalChanges({ db, workspaceDir: ws })).toEqual([]);
    const diffs = db
      .prepare(
        "SELECT count(*) FROM write_guardian_audit WHERE status = 'written' AND diff LIKE '%+- %' AND lines_added + lines_modified > 0",
      )
      .pluck()
      .get() as number;
    expect(diffs).toBe(summary.writes.written);
  });

  it('includes personal data and the hostile session for the UI security test', () => {
    const has = (pattern: string) =>
      db.prepare('SELECT count(*) FROM conversation_turns WHERE user_message_content LIKE ?').pluck().get(pattern) as number;
    expect(has('%@example.%')).toBeGreaterThan(0);
    expect(has('%+1 415 555%')).toBeGreaterThan(0);
    expect(
      db
        .prepare(
          "SELECT count(*) FROM conversation_turns WHERE user_message_content GLOB '*1[3-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*'",
        )
        .pluck()
        .get(),
    ).toBeGreaterThan(0);
    expect(has('%sk-proj-%')).toBeGreaterThan(0);
    const hostile = db
      .prepare(
        'SELECT user_message_content AS u, agent_message_content AS a FROM conversation_turns WHERE session_id = ? ORDER BY turn_number',
      )
      .all(HOSTILE_SESSION_ID) as Array<{ u: string; a: string }>;
    expect(hostile[0]!.u).toBe('<img src=x onerror=alert(1)>');
    expect(hostile[0]!.a).toContain('[click me](javascript:alert(1))');
  });

  it('is deterministic: the same seed gives identical database content and files; another seed does not', () => {
    const again = tempWorkspace();
    generateDemoWorkspace(again, { seed: 7 });
    const other = tempWorkspace();
    generateDemoWorkspace(other, { seed: 8 });
    const a = contentHashes(db);
    const db2 = open(again);
    const db3 = open(other);
    expect(contentHashes(db2)).toEqual(a);
    expect(contentHashes(db3).conversation_turns).not.toBe(a.conversation_turns);
    for (const f of MEMORY_FILES) expect(fs.readFileSync(path.join(again, f), 'utf8')).toBe(fs.readFileSync(path.join(ws, f), 'utf8'));
    db2.close();
    db3.close();
  });

  it('refuses to overwrite an existing workspace and rejects bad options by name', () => {
    expect(() => generateDemoWorkspace(ws, { seed: 7 })).toThrow(/already holds a Reflection database/);
    expect(() => generateDemoWorkspace(tempWorkspace(), { sessions: 0 })).toThrow(/sessions/);
    expect(() => generateDemoWorkspace(tempWorkspace(), { turnsPerSession: 1.5 })).toThrow(/turnsPerSession/);
  });

  it('bounds content writes at scale while the chain still ends in the files on disk', () => {
    const big = tempWorkspace();
    const s = generateDemoWorkspace(big, { seed: 3, sessions: 30, turnsPerSession: 60, maxContentWrites: 25, contextWindow: 2 });
    expect(s.turns).toBe(18 + 3 + 28 * 60);
    expect(s.writes.written).toBe(25);
    const bdb = open(big);
    for (const file of MEMORY_FILES) {
      const last = bdb
        .prepare(
          `SELECT s.content FROM write_guardian_audit w JOIN file_snapshots s ON s.id = w.after_snapshot_id
        WHERE w.target_file = ? AND w.status = 'written' ORDER BY w.created_at DESC, w.rowid DESC LIMIT 1`,
        )
        .pluck()
        .get(file) as string;
      expect(last).toBe(fs.readFileSync(path.join(big, file), 'utf8'));
    }
    expect(bdb.prepare('SELECT max(c) FROM (SELECT count(*) AS c FROM conversation_contexts GROUP BY turn_id)').pluck().get()).toBe(2);
    bdb.close();
  });
});
