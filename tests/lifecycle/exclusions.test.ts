import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { generateDemoWorkspace, TOUR_SESSION_ID } from '../../src/core/demo';
import { addExclusion, listExclusions, purgeExclusion, removeExclusion } from '../../src/core/lifecycle/exclusions';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

const count = (db: DB, sql: string, ...args: unknown[]) =>
  db
    .prepare(sql)
    .pluck()
    .get(...args) as number;

function addSample(db: DB, sessionId: string, key: string): void {
  const d = db.prepare('SELECT id, turn_id FROM memory_gate_decisions WHERE session_id = ? LIMIT 1').get(sessionId) as {
    id: string;
    turn_id: string;
  };
  db.prepare(
    `INSERT INTO dataset_samples (id, sample_type, turn_id, decision_id, session_id, content, annotation_status, source_key, created_at)
     VALUES (?, 'memory_gate_negative', ?, ?, ?, '{}', 'approved', ?, 1)`,
  ).run(`s-${key}`, d.turn_id, d.id, sessionId, key);
}

describe('opt-out exclusions', () => {
  it('adds, lists and removes exclusions of each kind with clear errors', () => {
    const dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 6, seed: 3 });
    const { db } = openWorkspaceDatabase(dir);
    const ctx = { db, workspaceDir: dir };
    const tour = db.prepare('SELECT channel_id, conversation_target, account_id FROM sessions WHERE id = ?').get(TOUR_SESSION_ID) as {
      channel_id: string;
      conversation_target: string;
      account_id: string;
    };
    const bySession = addExclusion(ctx, { kind: 'session', value: TOUR_SESSION_ID, reason: 'asked to be forgotten' });
    expect(bySession.sessions).toBe(1);
    const byTarget = addExclusion(ctx, { kind: 'target', value: `${tour.channel_id}:${tour.conversation_target}` });
    expect(byTarget.sessions).toBe(1);
    expect(() => addExclusion(ctx, { kind: 'session', value: TOUR_SESSION_ID })).toThrow(/already excluded/);
    expect(() => addExclusion(ctx, { kind: 'target', value: 'no-colon' })).toThrow(/expected "<channel>:<target>"/);
    expect(() => addExclusion(ctx, { kind: 'account', value: '  ' })).toThrow(/empty/);
    db.prepare(
      "INSERT INTO session_aliases (alias, session_id, source, created_at) VALUES ('agent:main:discord:dm-alex', ?, 'test', 1)",
    ).run(TOUR_SESSION_ID);
    removeExclusion(ctx, bySession.id);
    const byAlias = addExclusion(ctx, { kind: 'session', value: 'agent:main:discord:dm-alex' });
    expect(byAlias.value).toBe(TOUR_SESSION_ID); // an OpenClaw key names the same session
    expect(byAlias.sessions).toBe(1);
    const future = addExclusion(ctx, { kind: 'account', value: 'nobody-yet' });
    expect(future.sessions).toBe(0);
    expect(
      listExclusions(ctx)
        .map((e) => e.kind)
        .sort(),
    ).toEqual(['account', 'session', 'target']);
    expect(count(db, 'SELECT count(*) FROM excluded_sessions')).toBe(1);

    removeExclusion(ctx, byAlias.id);
    removeExclusion(ctx, byTarget.id);
    expect(count(db, 'SELECT count(*) FROM excluded_sessions')).toBe(0);
    expect(() => removeExclusion(ctx, 'missing')).toThrow(/not found/);
    db.close();
  }, 60_000);

  it('purges an excluded session: every row of it, and snapshots only it referenced; dry run first', () => {
    const dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 8, seed: 5 });
    const { db } = openWorkspaceDatabase(dir);
    const ctx = { db, workspaceDir: dir };
    const other = db.prepare('SELECT id FROM sessions WHERE id <> ? ORDER BY id LIMIT 1').pluck().get(TOUR_SESSION_ID) as string;
    addSample(db, TOUR_SESSION_ID, 'tour');
    addSample(db, other, 'other');
    const turnsOfTour = count(db, 'SELECT count(*) FROM conversation_turns WHERE session_id = ?', TOUR_SESSION_ID);
    const auditsOfTour = count(db, 'SELECT count(*) FROM write_guardian_audit WHERE session_id = ?', TOUR_SESSION_ID);
    expect(turnsOfTour).toBeGreaterThan(3);
    expect(auditsOfTour).toBeGreaterThan(0);
    const totalTurns = count(db, 'SELECT count(*) FROM conversation_turns');
    const tourText = db
      .prepare('SELECT user_message_content FROM conversation_turns WHERE session_id = ? ORDER BY turn_number LIMIT 1')
      .pluck()
      .get(TOUR_SESSION_ID) as string;
    // snapshots referenced by this session's audits only, and those shared with other sessions' writes
    const onlyTour = db
      .prepare(
        `
      SELECT s.id FROM file_snapshots s WHERE EXISTS (SELECT 1 FROM write_guardian_audit a WHERE a.session_id = ? AND s.id IN (a.before_snapshot_id, a.after_snapshot_id))
        AND NOT EXISTS (SELECT 1 FROM write_guardian_audit a WHERE (a.session_id IS NOT ? ) AND s.id IN (a.before_snapshot_id, a.after_snapshot_id))
        AND NOT EXISTS (SELECT 1 FROM file_state f WHERE f.snapshot_id = s.id)`,
      )
      .pluck()
      .all(TOUR_SESSION_ID, TOUR_SESSION_ID) as string[];
    const shared = db
      .prepare(
        `
      SELECT s.id FROM file_snapshots s WHERE EXISTS (SELECT 1 FROM write_guardian_audit a WHERE a.session_id = ? AND s.id IN (a.before_snapshot_id, a.after_snapshot_id))
        AND EXISTS (SELECT 1 FROM write_guardian_audit a WHERE a.session_id IS NOT ? AND s.id IN (a.before_snapshot_id, a.after_snapshot_id))`,
      )
      .pluck()
      .all(TOUR_SESSION_ID, TOUR_SESSION_ID) as string[];
    expect(onlyTour.length + shared.length).toBeGreaterThan(0);

    const ex = addExclusion(ctx, { kind: 'session', value: TOUR_SESSION_ID });
    expect(() => purgeExclusion(ctx, ex.id)).toThrow(/irreversible/);
    const preview = purgeExclusion(ctx, ex.id, { dryRun: true });
    expect(preview.deleted.conversation_turns).toBe(turnsOfTour);
    expect(preview.deleted.write_guardian_audit).toBe(auditsOfTour);
    expect(preview.deleted.dataset_samples).toBe(1);
    expect(count(db, 'SELECT count(*) FROM conversation_turns')).toBe(totalTurns); // nothing went

    const result = purgeExclusion(ctx, ex.id, { confirm: true });
    expect(result.deleted).toEqual(preview.deleted);
    for (const table of ['conversation_turns', 'memory_gate_decisions', 'write_guardian_audit', 'dataset_samples']) {
      expect(count(db, `SELECT count(*) FROM ${table} WHERE session_id = ?`, TOUR_SESSION_ID)).toBe(0);
    }
    expect(count(db, 'SELECT count(*) FROM sessions WHERE id = ?', TOUR_SESSION_ID)).toBe(0);
    expect(
      count(
        db,
        'SELECT count(*) FROM conversation_contexts c WHERE NOT EXISTS (SELECT 1 FROM conversation_turns t WHERE t.id = c.turn_id)',
      ),
    ).toBe(0);
    expect(count(db, 'SELECT count(*) FROM conversation_turns')).toBe(totalTurns - turnsOfTour);
    expect(count(db, "SELECT count(*) FROM dataset_samples WHERE id = 's-other'")).toBe(1);
    for (const id of onlyTour) expect(count(db, 'SELECT count(*) FROM file_snapshots WHERE id = ?', id)).toBe(0);
    for (const id of shared) expect(count(db, 'SELECT count(*) FROM file_snapshots WHERE id = ?', id)).toBe(1);
    const phrase = `"${tourText.slice(0, 20).replace(/"/g, '""')}"`;
    const stillStored = count(
      db,
      'SELECT count(*) FROM conversation_turns WHERE instr(user_message_content, ?) > 0 OR instr(agent_message_content, ?) > 0',
      tourText.slice(0, 20),
      tourText.slice(0, 20),
    );
    expect(count(db, 'SELECT count(*) FROM turns_fts WHERE turns_fts MATCH ?', phrase)).toBe(stillStored);
    expect(() => db.exec("INSERT INTO turns_fts(turns_fts) VALUES ('integrity-check')")).not.toThrow();
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    // the exclusion stays, so the session stays excluded if it comes back
    expect(listExclusions(ctx)).toHaveLength(1);
    db.close();
  }, 60_000);

  it('works from the CLI', () => {
    const dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 4, seed: 2 });
    const cli = (...args: string[]) =>
      spawnSync('node', [path.join(repoRoot, 'bin', 'reflection.cjs'), ...args, '--workspace', dir], { encoding: 'utf8' });
    const added = cli('exclude', 'add', '--session', TOUR_SESSION_ID, '--reason', 'opt-out', '--json');
    expect(added.status).toBe(0);
    const id = (JSON.parse(added.stdout) as { id: string }).id;
    expect(cli('exclude', 'add', '--session', 'a', '--account', 'b').stderr).toMatch(/exactly one of/);
    expect(cli('exclude', 'list').stdout).toContain(TOUR_SESSION_ID);
    const refused = cli('exclude', 'purge', id);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);
    expect(cli('exclude', 'purge', id, '--dry-run').stdout).toMatch(/would delete[\s\S]*conversation_turns: \d+/);
    expect(cli('exclude', 'purge', id, '--yes').stdout).toMatch(/deleted[\s\S]*conversation_turns: \d+/);
    expect(cli('exclude', 'remove', id).status).toBe(0);
    expect(cli('exclude', 'list').stdout).toContain('no exclusions');
  }, 180_000); // each purge boots a job worker from source (about 1 s CPU more per call): slow under load
});
