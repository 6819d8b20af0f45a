import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { generateDemoWorkspace } from '../../src/core/demo';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

const bin = path.join(repoRoot, 'bin', 'reflection.cjs');
const cli = (dir: string, ...args: string[]) =>
  JSON.parse(execFileSync('node', [bin, 'guardian', ...args, '--workspace', dir, '--json'], { encoding: 'utf8' }));

describe('reflection guardian on the demo workspace', () => {
  it('rollback restores the file, history shows it, rolling back the rollback re-applies the change', () => {
    const dir = path.join(tempWorkspace(), 'demo');
    generateDemoWorkspace(dir, { sessions: 4, seed: 7 });
    const userBefore = fs.readFileSync(path.join(dir, 'USER.md'), 'utf8');

    const latest = cli(dir, 'list', '-f', 'USER.md', '-s', 'written', '-l', '1').items[0];
    expect(latest.targetFile).toBe('USER.md');
    const diff = cli(dir, 'diff', latest.id);
    expect(diff.diff).toContain('@@');

    const dry = cli(dir, 'rollback', latest.id, '--dry-run');
    expect(fs.readFileSync(path.join(dir, 'USER.md'), 'utf8')).toBe(userBefore);

    const r = cli(dir, 'rollback', latest.id, '--reason', 'demo says no', '--by', 'alex');
    expect(r.mode).toBe('restore');
    const afterRollback = fs.existsSync(path.join(dir, 'USER.md')) ? fs.readFileSync(path.join(dir, 'USER.md'), 'utf8') : null;
    expect(afterRollback).toBe(dry.resultContent);
    expect(afterRollback).not.toBe(userBefore);

    const history = cli(dir, 'history', '-f', 'USER.md', '-l', '5').items;
    expect(history[0]).toMatchObject({ auditId: r.rollbackAuditId, source: 'rollback', actor: 'rollback by alex', reason: 'demo says no' });
    expect(history[1]).toMatchObject({ auditId: latest.id, status: 'rolled_back', rolledBack: { by: 'alex' } });

    // Rolling back the same audit again is refused, pointing at the rollback's own audit.
    const again = spawnSync('node', [bin, 'guardian', 'rollback', latest.id, '--workspace', dir], { encoding: 'utf8' });
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain(`roll back its own audit ${r.rollbackAuditId}`);

    const undo = cli(dir, 'rollback', r.rollbackAuditId);
    expect(undo.reappliesAuditId).toBe(latest.id);
    expect(fs.readFileSync(path.join(dir, 'USER.md'), 'utf8')).toBe(userBefore);

    const show = cli(dir, 'show', latest.id);
    expect(show.rollback.rollbackAuditId).toBe(r.rollbackAuditId);
    expect(show.decision).not.toBeNull();
    expect(show.turn).not.toBeNull();
  }, 180_000);

  it('records a manual edit as an external change that history shows; export streams csv', () => {
    const dir = path.join(tempWorkspace(), 'demo');
    generateDemoWorkspace(dir, { sessions: 3, seed: 3 });
    fs.appendFileSync(path.join(dir, 'MEMORY.md'), '- edited by hand in a text editor\n');
    const history = cli(dir, 'history', '-f', 'MEMORY.md', '-l', '3').items;
    expect(history[0]).toMatchObject({ source: 'external', actor: 'external edit', status: 'written' });
    const { db } = openWorkspaceDatabase(dir);
    const diff = db.prepare('SELECT diff FROM write_guardian_audit WHERE id = ?').pluck().get(history[0].auditId);
    db.close();
    expect(diff).toContain('+- edited by hand in a text editor');

    const out = path.join(dir, 'audits.csv');
    execFileSync('node', [bin, 'guardian', 'export', '--format', 'csv', '-o', out, '--workspace', dir], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    const lines = fs.readFileSync(out, 'utf8').trim().split('\r\n');
    expect(lines[0]!.startsWith('id,createdAt,sessionId')).toBe(true);
    expect(lines.length).toBeGreaterThan(3);
  }, 120_000);

  it('correct, retry --dry-run and retry through the CLI', () => {
    const dir = path.join(tempWorkspace(), 'demo');
    generateDemoWorkspace(dir, { sessions: 3, seed: 5 });
    const refused = cli(dir, 'list', '-s', 'refused', '-l', '1').items[0];
    const c = cli(
      dir,
      'correct',
      refused.id,
      '--status',
      'written',
      '--fact',
      'prefers green tea',
      '--file',
      'USER.md',
      '--reason',
      'it was a real preference',
      '--apply-to-future',
    );
    expect(c).toMatchObject({ correctedStatus: 'written', correctedTargetFile: 'USER.md', applyToFuture: true });
    const before = fs.readFileSync(path.join(dir, 'USER.md'), 'utf8');
    const dry = cli(dir, 'retry', refused.id, '--dry-run');
    expect(dry.proposedContent).toContain('## Corrections by the curator\n\n- prefers green tea\n');
    expect(fs.readFileSync(path.join(dir, 'USER.md'), 'utf8')).toBe(before);
    const r = cli(dir, 'retry', refused.id);
    expect(fs.readFileSync(path.join(dir, 'USER.md'), 'utf8')).toBe(dry.proposedContent);
    const show = cli(dir, 'show', refused.id);
    expect(show.corrections[0]).toMatchObject({ id: c.id, retryAuditId: r.retryAuditId });
    expect(show.followUps.map((a: { id: string }) => a.id)).toEqual([r.retryAuditId]);
  }, 180_000);
});
