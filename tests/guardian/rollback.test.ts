import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordExternalChanges } from '../../src/core/guardian/external';
import { fileHistory, showAudit } from '../../src/core/guardian/queries';
import { rollbackSession, rollbackWrite } from '../../src/core/guardian/rollback';
import { makeFixture } from './fixture';

const status = (f: ReturnType<typeof makeFixture>, id: string) =>
  f.db.prepare('SELECT status FROM write_guardian_audit WHERE id = ?').pluck().get(id);

describe('rollbackWrite', () => {
  it('clean: restores the before-snapshot and records backup, rollbacks row, status and a rollback audit', async () => {
    const f = makeFixture();
    f.write('USER.md', '# User\n- likes tea\n');
    recordExternalChanges(f.ctx);
    const id = f.pluginWrite('USER.md', '# User\n- likes tea\n- lives in Paris\n');
    const r = await rollbackWrite(f.ctx, { auditId: id, reason: 'wrong city' });
    expect(r.mode).toBe('restore');
    expect(f.read('USER.md')).toBe('# User\n- likes tea\n');
    expect(status(f, id)).toBe('rolled_back');
    const rb = f.db.prepare('SELECT * FROM rollbacks WHERE audit_id = ?').get(id) as Record<string, unknown>;
    expect(rb).toMatchObject({
      reason: 'wrong city',
      rolled_back_by: 'tester',
      mode: 'restore',
      previous_status: 'written',
      rollback_audit_id: r.rollbackAuditId,
    });
    expect(f.db.prepare('SELECT content FROM file_snapshots WHERE id = ?').pluck().get(rb.backup_snapshot_id)).toBe(
      '# User\n- likes tea\n- lives in Paris\n',
    );
    const ra = f.db.prepare('SELECT source, related_audit_id, status FROM write_guardian_audit WHERE id = ?').get(r.rollbackAuditId);
    expect(ra).toEqual({ source: 'rollback', related_audit_id: id, status: 'written' });
    // The rollback's own write is not mistaken for an external edit.
    expect(recordExternalChanges(f.ctx)).toEqual([]);
    const detail = showAudit(f.ctx, id);
    expect(detail.rollback?.rollbackAuditId).toBe(r.rollbackAuditId);
    expect(detail.followUps.map((a) => a.source)).toEqual(['rollback']);
    f.close();
  });

  it('created file: deletes it after keeping a backup snapshot', async () => {
    const f = makeFixture();
    const id = f.pluginWrite('TOOLS.md', '# Tools\n- uses vim\n');
    const r = await rollbackWrite(f.ctx, { auditId: id });
    expect(r.deletesFile).toBe(true);
    expect(fs.existsSync(path.join(f.dir, 'TOOLS.md'))).toBe(false);
    const rb = f.db.prepare('SELECT restored_snapshot_id, backup_snapshot_id FROM rollbacks WHERE audit_id = ?').get(id) as Record<
      string,
      string | null
    >;
    expect(rb.restored_snapshot_id).toBeNull();
    expect(f.db.prepare('SELECT content FROM file_snapshots WHERE id = ?').pluck().get(rb.backup_snapshot_id)).toBe(
      '# Tools\n- uses vim\n',
    );
    f.close();
  });

  it('file changed later: reverse-applies only this write, keeping the later write', async () => {
    const f = makeFixture();
    f.write('MEMORY.md', '# Memory\n- a\n');
    recordExternalChanges(f.ctx);
    const bad = f.pluginWrite('MEMORY.md', '# Memory\n- a\n- wrong fact\n');
    f.pluginWrite('MEMORY.md', '# Memory\n- a\n- wrong fact\n- later fact\n');
    const r = await rollbackWrite(f.ctx, { auditId: bad });
    expect(r.mode).toBe('reverse_patch');
    expect(f.read('MEMORY.md')).toBe('# Memory\n- a\n- later fact\n');
    expect(status(f, bad)).toBe('rolled_back');
    f.close();
  });

  it('true conflict: answers the conflict variant, writes nothing; --force restores', async () => {
    const f = makeFixture();
    f.write('USER.md', '# User\n- name: Ann\n');
    recordExternalChanges(f.ctx);
    const bad = f.pluginWrite('USER.md', '# User\n- name: Anna\n');
    f.pluginWrite('USER.md', '# User\n- name: Anna Smith\n');
    const before = fs.readFileSync(path.join(f.dir, 'USER.md'));
    const refused = await rollbackWrite(f.ctx, { auditId: bad });
    expect(refused).toMatchObject({
      status: 'conflict',
      dryRun: false,
      rollbackId: null,
      conflict: { message: expect.stringContaining('name: Anna Smith') },
    });
    expect(fs.readFileSync(path.join(f.dir, 'USER.md')).equals(before)).toBe(true);
    expect(status(f, bad)).toBe('written');
    const preview = await rollbackWrite(f.ctx, { auditId: bad, dryRun: true });
    expect(preview.status).toBe('conflict');
    expect(preview.conflict?.regions[0]).toMatchObject({
      current: ['- name: Anna Smith'],
      written: ['- name: Anna'],
      wanted: ['- name: Ann'],
    });

    const forced = await rollbackWrite(f.ctx, { auditId: bad, force: true, reason: 'start over' });
    expect(forced).toMatchObject({ status: 'rolled_back', mode: 'force' });
    expect(f.read('USER.md')).toBe('# User\n- name: Ann\n');
    const backup = f.db
      .prepare('SELECT s.content FROM rollbacks r JOIN file_snapshots s ON s.id = r.backup_snapshot_id WHERE r.audit_id = ?')
      .pluck()
      .get(bad);
    expect(backup).toBe('# User\n- name: Anna Smith\n');
    f.close();
  });

  it('--dry-run returns the result and diff and leaves the file byte-identical and the database unchanged', async () => {
    const f = makeFixture();
    f.write('SOUL.md', '# Soul\r\n- calm\r\n');
    recordExternalChanges(f.ctx);
    const id = f.pluginWrite('SOUL.md', '# Soul\r\n- calm\r\n- curious\r\n');
    const bytes = fs.readFileSync(path.join(f.dir, 'SOUL.md'));
    const mtime = fs.statSync(path.join(f.dir, 'SOUL.md')).mtimeMs;
    const counts = () =>
      f.db
        .prepare(
          'SELECT (SELECT count(*) FROM write_guardian_audit), (SELECT count(*) FROM rollbacks), (SELECT count(*) FROM file_snapshots), (SELECT count(*) FROM file_operations)',
        )
        .raw()
        .get();
    const c0 = counts();
    const r = await rollbackWrite(f.ctx, { auditId: id, dryRun: true });
    expect(r.dryRun).toBe(true);
    expect(r.resultContent).toBe('# Soul\r\n- calm\r\n');
    expect(r.diff).toContain('-- curious');
    expect(fs.readFileSync(path.join(f.dir, 'SOUL.md')).equals(bytes)).toBe(true);
    expect(fs.statSync(path.join(f.dir, 'SOUL.md')).mtimeMs).toBe(mtime);
    expect(counts()).toEqual(c0);
    expect(status(f, id)).toBe('written');
    f.close();
  });

  it('refuses refused, skipped and already rolled-back audits with a clear reason', async () => {
    const f = makeFixture();
    const refused = f.core.recordWrite({
      targetFile: 'USER.md',
      status: 'refused',
      source: 'retry',
      reason: 'not a stable fact',
      createdAt: 5,
    }).auditId;
    await expect(rollbackWrite(f.ctx, { auditId: refused })).rejects.toMatchObject({
      kind: 'Invalid',
      message: expect.stringMatching(/status refused: nothing was written/),
    });
    const id = f.pluginWrite('USER.md', '# User\n- x\n');
    const r = await rollbackWrite(f.ctx, { auditId: id });
    await expect(rollbackWrite(f.ctx, { auditId: id })).rejects.toMatchObject({
      kind: 'Conflict',
      message: expect.stringContaining(`roll back its own audit ${r.rollbackAuditId}`),
    });
    await expect(rollbackWrite(f.ctx, { auditId: 'nope' })).rejects.toMatchObject({ kind: 'NotFound' });
    // Only the after-content known (before unknown): never mistaken for a created file and deleted.
    f.write('SOUL.md', '# Soul\n');
    const afterOnly = f.core.recordWrite({
      targetFile: 'SOUL.md',
      after: '# Soul\n',
      status: 'written',
      source: 'retry',
      createdAt: 6,
    }).auditId;
    await expect(rollbackWrite(f.ctx, { auditId: afterOnly, force: true })).rejects.toMatchObject({
      kind: 'Invalid',
      message: expect.stringContaining('cannot be undone safely'),
    });
    expect(f.read('SOUL.md')).toBe('# Soul\n');
    f.close();
  });

  it('rolling back the rollback re-applies the original change and history shows every step', async () => {
    const f = makeFixture();
    f.write('USER.md', '# User\n');
    recordExternalChanges(f.ctx);
    const id = f.pluginWrite('USER.md', '# User\n- prefers mornings\n');
    const r1 = await rollbackWrite(f.ctx, { auditId: id, reason: 'not sure' });
    expect(f.read('USER.md')).toBe('# User\n');
    const r2 = await rollbackWrite(f.ctx, { auditId: r1.rollbackAuditId!, reason: 'it was right after all' });
    expect(r2.reappliesAuditId).toBe(id);
    expect(f.read('USER.md')).toBe('# User\n- prefers mornings\n');
    expect(status(f, r1.rollbackAuditId!)).toBe('rolled_back');
    expect(status(f, id)).toBe('rolled_back');
    const h = fileHistory(f.ctx, { file: 'USER.md' }).items;
    expect(h.map((e) => e.source)).toEqual(['rollback', 'rollback', 'plugin']);
    expect(h[0]!.actor).toBe('rollback by tester');
    expect(h[0]!.reason).toBe('it was right after all');
    expect(h[2]!.rolledBack).toMatchObject({ reason: 'not sure', rollbackAuditId: r1.rollbackAuditId });
    f.close();
  });
});

describe('rollback of other kinds of writes and settings', () => {
  it('undoes an external edit, and is refused when workbench.json switches rollback off', async () => {
    const f = makeFixture();
    f.write('IDENTITY.md', '# Identity\n- name: Claw\n');
    recordExternalChanges(f.ctx);
    f.write('IDENTITY.md', '# Identity\n- name: Clawd (typo by hand)\n');
    const [ext] = recordExternalChanges(f.ctx);
    if (!ext) throw new Error('the edit on disk was not recorded');
    const r = await rollbackWrite(f.ctx, { auditId: ext.auditId, reason: 'undo my typo' });
    expect(r.mode).toBe('restore');
    expect(f.read('IDENTITY.md')).toBe('# Identity\n- name: Claw\n');

    fs.mkdirSync(path.join(f.dir, '.openclaw-reflection'), { recursive: true });
    fs.writeFileSync(
      path.join(f.dir, '.openclaw-reflection', 'workbench.json'),
      JSON.stringify({ writeGuardianAuditing: { enableRollback: false } }),
    );
    const id = f.pluginWrite('IDENTITY.md', '# Identity\n- name: Claw\n- emoji: crab\n');
    await expect(rollbackWrite(f.ctx, { auditId: id })).rejects.toMatchObject({
      kind: 'Invalid',
      message: expect.stringContaining('enableRollback'),
    });
    expect(f.read('IDENTITY.md')).toContain('emoji: crab');
    f.close();
  });
});

describe('rollbackSession', () => {
  it('reports a conflicting write and still rolls back the others', async () => {
    const f = makeFixture();
    f.write('USER.md', '# User\n- city: Lyon\n');
    recordExternalChanges(f.ctx);
    const s = 'channel:test:mixed';
    const conflicting = f.pluginWrite('USER.md', '# User\n- city: Paris\n', { session: s });
    f.pluginWrite('USER.md', '# User\n- city: Paris 11e\n', { session: 'channel:test:other' });
    const clean = f.pluginWrite('TOOLS.md', '# Tools\n- git\n', { session: s });
    const res = await rollbackSession(f.ctx, { sessionKey: s });
    expect(res.items.map((i) => [i.auditId, i.ok, i.error?.kind])).toEqual([
      [clean, true, undefined],
      [conflicting, false, 'Conflict'],
    ]);
    // the refused write carries its conflict as a result, with the overlapping lines, not only a message
    expect(res.items.map((i) => i.result?.status)).toEqual(['rolled_back', 'conflict']);
    expect(res.items[1]!.result?.conflict?.regions[0]).toMatchObject({ current: ['- city: Paris 11e'] });
    expect(f.read('TOOLS.md')).toBeNull();
    expect(f.read('USER.md')).toBe('# User\n- city: Paris 11e\n');
    await expect(rollbackSession(f.ctx, { sessionKey: 'channel:none' })).rejects.toMatchObject({ kind: 'NotFound' });
    f.close();
  });

  it('undoes several interleaved writes to several files newest first', async () => {
    const f = makeFixture();
    f.write('USER.md', '# User\n');
    f.write('MEMORY.md', '# Memory\n');
    recordExternalChanges(f.ctx);
    const s = 'channel:test:bad';
    f.pluginWrite('USER.md', '# User\n- u1\n', { session: s });
    f.pluginWrite('MEMORY.md', '# Memory\n- m1\n', { session: s });
    const other = f.pluginWrite('MEMORY.md', '# Memory\n- m1\n- other session\n', { session: 'channel:test:good' });
    f.pluginWrite('USER.md', '# User\n- u1\n- u2\n', { session: s });
    f.pluginWrite('MEMORY.md', '# Memory\n- m1\n- other session\n- m2\n', { session: s });

    const dry = await rollbackSession(f.ctx, { sessionKey: s, dryRun: true });
    expect(dry.items.every((i) => i.ok)).toBe(true);
    expect(f.read('USER.md')).toBe('# User\n- u1\n- u2\n');

    const res = await rollbackSession(f.ctx, { sessionKey: s, reason: 'spam session' });
    expect(res.failed).toBe(0);
    expect(res.rolledBack).toBe(4);
    const times = res.items.map((i) => i.createdAt);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(f.read('USER.md')).toBe('# User\n');
    expect(f.read('MEMORY.md')).toBe('# Memory\n- other session\n');
    expect(status(f, other)).toBe('written');
    // The dry run predicted the outcome of the real run.
    expect(dry.items.map((i) => i.result?.resultContent)).toEqual(res.items.map((i) => i.result?.resultContent));
    f.close();
  });
});
