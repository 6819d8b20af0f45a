import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { DEMO_BASE_TIME, generateDemoWorkspace } from '../../src/core/demo';
import { pruneOldData } from '../../src/core/lifecycle/retention';
import { backupDatabase } from '../../src/core/lifecycle/backup';
import { saveSettings } from '../../src/core/lifecycle/settings';
import { startRetentionSchedule } from '../../src/core/lifecycle/schedule';
import type { PruneResult } from '../../src/core/lifecycle/retention';
import { FakeClock } from './fakeClock';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

const DAY = 24 * 60 * 60 * 1000;
const NOW = DEMO_BASE_TIME + 22 * DAY;
const DAYS = 10;
const CUTOFF = NOW - DAYS * DAY;

const one = (db: DB, sql: string, ...args: unknown[]) =>
  db
    .prepare(sql)
    .pluck()
    .get(...args);
const count = (db: DB, sql: string, ...args: unknown[]) => one(db, sql, ...args) as number;

interface Protected {
  approvedDecision: string;
  approvedTurn: string;
  pendingSample: string;
  correctedAudit: string;
  rolledBackAudit: string;
  plainOldAudit: string;
  plainOldAuditSnapshots: string[];
}

/** A generated workspace where curators acted on some old rows. */
function workspaceWithCuration(): { dir: string; db: DB; p: Protected } {
  const dir = tempWorkspace();
  generateDemoWorkspace(dir, { sessions: 12, seed: 9 });
  const { db } = openWorkspaceDatabase(dir);
  const oldDecisions = db
    .prepare(
      "SELECT id, turn_id, session_id FROM memory_gate_decisions WHERE created_at < ? AND decision = 'NO_WRITE' ORDER BY created_at LIMIT 2",
    )
    .all(CUTOFF - DAY) as { id: string; turn_id: string; session_id: string }[];
  const oldAudits = db
    .prepare(
      "SELECT id, before_snapshot_id AS b, after_snapshot_id AS a FROM write_guardian_audit WHERE created_at < ? AND status = 'written' ORDER BY created_at LIMIT 3",
    )
    .all(CUTOFF - DAY) as { id: string; b: string | null; a: string | null }[];
  expect(oldDecisions.length).toBe(2);
  expect(oldAudits.length).toBe(3);
  const sample =
    db.prepare(`INSERT INTO dataset_samples (id, sample_type, turn_id, decision_id, session_id, content, annotation_status, source_key, created_at)
    VALUES (?, 'memory_gate_negative', ?, ?, ?, '{}', ?, ?, ?)`);
  sample.run('approved-1', oldDecisions[0]!.turn_id, oldDecisions[0]!.id, oldDecisions[0]!.session_id, 'approved', 'k1', CUTOFF - DAY);
  sample.run('pending-1', oldDecisions[1]!.turn_id, oldDecisions[1]!.id, oldDecisions[1]!.session_id, 'pending', 'k2', CUTOFF - DAY);
  db.prepare(
    `INSERT INTO behavior_corrections (id, audit_id, original_status, corrected_status, correction_reason, corrected_by, corrected_at)
    VALUES ('corr-1', ?, 'written', 'refused', 'not durable', 'curator', ?)`,
  ).run(oldAudits[0]!.id, CUTOFF - DAY);
  db.prepare(
    `INSERT INTO rollbacks (id, audit_id, rolled_back_at, rolled_back_by, reason, restored_snapshot_id, previous_status)
    VALUES ('rb-1', ?, ?, 'curator', 'wrong fact', ?, 'written')`,
  ).run(oldAudits[1]!.id, CUTOFF - DAY, oldAudits[1]!.b);
  return {
    dir,
    db,
    p: {
      approvedDecision: oldDecisions[0]!.id,
      approvedTurn: oldDecisions[0]!.turn_id,
      pendingSample: 'pending-1',
      correctedAudit: oldAudits[0]!.id,
      rolledBackAudit: oldAudits[1]!.id,
      plainOldAudit: oldAudits[2]!.id,
      plainOldAuditSnapshots: [oldAudits[2]!.b, oldAudits[2]!.a].filter((x): x is string => Boolean(x)),
    },
  };
}

describe('retention', () => {
  it('deletes old conversations, decisions and audits, keeping what curation references, and says why', () => {
    const { dir, db, p } = workspaceWithCuration();
    const ctx = { db, workspaceDir: dir, now: () => NOW };
    const recentTurns = count(db, 'SELECT count(*) FROM conversation_turns WHERE created_at >= ?', CUTOFF);
    const recentAudits = count(db, 'SELECT count(*) FROM write_guardian_audit WHERE created_at >= ?', CUTOFF);
    const oldTurns = count(db, 'SELECT count(*) FROM conversation_turns WHERE created_at < ?', CUTOFF);
    expect(oldTurns).toBeGreaterThan(20);
    const fileStateSnapshots = db.prepare('SELECT snapshot_id FROM file_state WHERE snapshot_id IS NOT NULL').pluck().all() as string[];

    const preview = pruneOldData(ctx, { days: DAYS, dryRun: true });
    expect(count(db, 'SELECT count(*) FROM conversation_turns WHERE created_at < ?', CUTOFF)).toBe(oldTurns);
    const result = pruneOldData(ctx, { days: DAYS, confirm: true, previewToken: preview.previewToken, force: true });
    expect(result.deleted).toEqual(preview.deleted);
    expect(result.kept).toEqual(preview.kept);
    expect(result.cutoff).toBe(CUTOFF);

    // recent data untouched
    expect(count(db, 'SELECT count(*) FROM conversation_turns WHERE created_at >= ?', CUTOFF)).toBe(recentTurns);
    expect(count(db, 'SELECT count(*) FROM write_guardian_audit WHERE created_at >= ?', CUTOFF)).toBe(recentAudits);
    // curated rows survive, with what they need
    expect(one(db, 'SELECT 1 FROM memory_gate_decisions WHERE id = ?', p.approvedDecision)).toBe(1);
    expect(one(db, 'SELECT 1 FROM conversation_turns WHERE id = ?', p.approvedTurn)).toBe(1);
    expect(count(db, 'SELECT count(*) FROM conversation_contexts WHERE turn_id = ?', p.approvedTurn)).toBeGreaterThan(0);
    expect(one(db, "SELECT 1 FROM dataset_samples WHERE id = 'approved-1'")).toBe(1);
    expect(one(db, 'SELECT 1 FROM dataset_samples WHERE id = ?', p.pendingSample)).toBeUndefined();
    for (const audit of [p.correctedAudit, p.rolledBackAudit]) {
      expect(one(db, 'SELECT 1 FROM write_guardian_audit WHERE id = ?', audit)).toBe(1);
      expect(
        one(db, 'SELECT 1 FROM memory_gate_decisions d JOIN write_guardian_audit a ON a.decision_id = d.id WHERE a.id = ?', audit),
      ).toBe(1);
    }
    expect(one(db, 'SELECT 1 FROM write_guardian_audit WHERE id = ?', p.plainOldAudit)).toBeUndefined();
    // the only old rows left are the kept ones
    const oldLeft = count(db, 'SELECT count(*) FROM write_guardian_audit WHERE created_at < ?', CUTOFF);
    expect(oldLeft).toBe(Object.values(result.kept.write_guardian_audit ?? {}).reduce((a, b) => a + b, 0));
    expect(result.kept.write_guardian_audit).toMatchObject({ correction: 1, rollback: 1 });
    expect(result.kept.memory_gate_decisions).toMatchObject({ 'curated dataset sample': 1, 'referenced by a kept write': 2 });
    expect(result.kept.conversation_turns?.['curated dataset sample']).toBe(1);
    expect(count(db, 'SELECT count(*) FROM conversation_turns WHERE created_at < ?', CUTOFF)).toBe(
      Object.values(result.kept.conversation_turns ?? {}).reduce((a, b) => a + b, 0),
    );
    expect(result.deleted.conversation_turns).toBe(
      oldTurns - count(db, 'SELECT count(*) FROM conversation_turns WHERE created_at < ?', CUTOFF),
    );
    // snapshots: referenced ones all present (foreign keys hold), the memory files' current state kept
    expect(db.pragma('foreign_key_check')).toEqual([]);
    for (const s of fileStateSnapshots) expect(one(db, 'SELECT 1 FROM file_snapshots WHERE id = ?', s)).toBe(1);
    for (const s of p.plainOldAuditSnapshots) {
      const stillReferenced =
        count(db, `SELECT count(*) FROM write_guardian_audit WHERE ? IN (before_snapshot_id, after_snapshot_id)`, s) +
        count(db, 'SELECT count(*) FROM rollbacks WHERE ? IN (restored_snapshot_id, backup_snapshot_id)', s) +
        count(db, 'SELECT count(*) FROM file_state WHERE snapshot_id = ?', s);
      expect(count(db, 'SELECT count(*) FROM file_snapshots WHERE id = ?', s)).toBe(stillReferenced > 0 ? 1 : 0);
    }
    expect(result.deleted.file_snapshots ?? 0).toBeGreaterThan(0);
    expect(
      count(
        db,
        `SELECT count(*) FROM file_snapshots s WHERE NOT EXISTS (SELECT 1 FROM write_guardian_audit a WHERE s.id IN (a.before_snapshot_id, a.after_snapshot_id))
      AND NOT EXISTS (SELECT 1 FROM rollbacks r WHERE s.id IN (r.restored_snapshot_id, r.backup_snapshot_id)) AND NOT EXISTS (SELECT 1 FROM file_state f WHERE f.snapshot_id = s.id)`,
      ),
    ).toBe(0);
    // sessions with nothing left are gone, others stay
    expect(
      count(db, 'SELECT count(*) FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM conversation_turns t WHERE t.session_id = s.id)'),
    ).toBe(0);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(() => db.exec("INSERT INTO turns_fts(turns_fts) VALUES ('integrity-check')")).not.toThrow();

    // running again deletes nothing more
    expect(pruneOldData(ctx, { days: DAYS, dryRun: true }).deleted).toEqual({});
    db.close();
  }, 60_000);

  it('uses storage.retentionDays from the settings, and refuses without a limit', () => {
    const dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 3, seed: 1 });
    const { db } = openWorkspaceDatabase(dir);
    const ctx = { db, workspaceDir: dir, now: () => NOW };
    expect(() => pruneOldData(ctx)).toThrow(/retentionDays is not set/);
    expect(() => pruneOldData(ctx, { days: -1, dryRun: true })).toThrow(/days: expected a whole number/);
    saveSettings(dir, { storage: { retentionDays: 400 } });
    const r = pruneOldData(ctx, { dryRun: true });
    expect(r.days).toBe(400);
    expect(r.deleted).toEqual({});
    db.close();
    const cli = spawnSync(
      'node',
      [path.join(repoRoot, 'bin', 'reflection.cjs'), 'prune', '--dry-run', '--days', '10', '--workspace', dir, '--json'],
      { encoding: 'utf8' },
    );
    expect(cli.status).toBe(0);
    const out = JSON.parse(cli.stdout) as { dryRun: boolean; deleted: Record<string, number> };
    expect(out.dryRun).toBe(true);
    expect(out.deleted.conversation_turns).toBeGreaterThan(0);
    // Without --yes (and no terminal to ask in) nothing goes; without a backup --yes alone is refused too.
    const turns = () => {
      const { db: d } = openWorkspaceDatabase(dir);
      const n = count(d, 'SELECT count(*) FROM conversation_turns');
      d.close();
      return n;
    };
    const before = turns();
    const prune = (...extra: string[]) =>
      spawnSync('node', [path.join(repoRoot, 'bin', 'reflection.cjs'), 'prune', '--days', '10', '--workspace', dir, ...extra], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const unconfirmed = prune();
    expect(unconfirmed.status).not.toBe(0);
    expect(unconfirmed.stdout).toMatch(/would delete/);
    expect(unconfirmed.stderr).toMatch(/--yes/);
    const noBackup = prune('--yes');
    expect(noBackup.status).not.toBe(0);
    expect(noBackup.stderr).toMatch(/backup/);
    expect(turns()).toBe(before);
    const forced = prune('--yes', '--force');
    expect(forced.status, forced.stderr).toBe(0);
    expect(turns()).toBeLessThan(before);
  }, 180_000); // each prune boots job workers from source (about 1 s CPU more per worker): slow under load

  it('runs on a schedule while the workbench is open: shortly after start, then daily', async () => {
    const dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 4, seed: 4 });
    const { db } = openWorkspaceDatabase(dir);
    const clock = new FakeClock(NOW);
    const runs: PruneResult[] = [];
    // Scheduled retention deletes only what a backup holds.
    await backupDatabase({ db, workspaceDir: dir, now: () => NOW }, {});
    const schedule = startRetentionSchedule(
      { db, workspaceDir: dir },
      {
        days: DAYS,
        clock,
        onRun: (r) => runs.push(r),
        onError: (e) => {
          throw e;
        },
      },
    );
    await clock.advanceTo(NOW + 30_000, () => schedule.idle());
    expect(runs).toHaveLength(0);
    await clock.advanceTo(NOW + 61_000, () => schedule.idle());
    expect(runs).toHaveLength(1);
    expect(runs[0]!.cutoff).toBe(NOW + 60_000 - DAYS * DAY);
    expect(runs[0]!.deleted.conversation_turns).toBeGreaterThan(0);
    await clock.advanceTo(NOW + 60_000 + DAY + 1, () => schedule.idle());
    expect(runs).toHaveLength(2);
    schedule.stop();
    expect(clock.pending()).toBe(0);
    db.close();
  }, 60_000);
});
