import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { readMemoryFile } from '../../src/core/files/memoryFiles';
import type { ServiceContext } from '../../src/core/context';
import { recordExternalChanges } from '../../src/core/guardian/external';
import { FAULT_STEPS } from '../../src/core/guardian/faults';
import { reconcilePending } from '../../src/core/guardian/operations';
import { rollbackWrite } from '../../src/core/guardian/rollback';
import { sha256 } from '../../src/core/text/diff';
import { repoRoot } from '../helpers/workspace';
import { makeFixture } from './fixture';

const bin = path.join(repoRoot, 'bin', 'reflection.cjs');
const BEFORE = '# Memory\n- kept\n';
const AFTER = '# Memory\n- kept\n- to be undone\n';

describe('a rollback killed at every step', () => {
  it.each(FAULT_STEPS)(
    'killed at %s: after reopening, file and database agree',
    async (step) => {
      const f = makeFixture();
      f.write('MEMORY.md', BEFORE);
      recordExternalChanges(f.ctx);
      const id = f.pluginWrite('MEMORY.md', AFTER);
      f.close();

      const child = spawnSync('node', [bin, 'guardian', 'rollback', id, '--workspace', f.dir], {
        env: { ...process.env, REFLECTION_FAULT: step },
        encoding: 'utf8',
      });
      expect(child.signal).toBe('SIGKILL');

      const { db } = openWorkspaceDatabase(f.dir);
      const ctx: ServiceContext = { db, workspaceDir: f.dir };
      const messages = await reconcilePending(ctx);
      const disk = readMemoryFile(f.dir, 'MEMORY.md');
      const status = db.prepare('SELECT status FROM write_guardian_audit WHERE id = ?').pluck().get(id);
      const rollbacks = db.prepare('SELECT count(*) FROM rollbacks WHERE audit_id = ?').pluck().get(id);
      const stateHash = db.prepare("SELECT content_hash FROM file_state WHERE file_name = 'MEMORY.md'").pluck().get();
      const pending = db.prepare("SELECT count(*) FROM file_operations WHERE state = 'planned'").pluck().get();

      // Either the rollback happened completely, or not at all; never half.
      if (disk === BEFORE) {
        expect(status).toBe('rolled_back');
        expect(rollbacks).toBe(1);
      } else {
        expect(disk).toBe(AFTER);
        expect(status).toBe('written');
        expect(rollbacks).toBe(0);
      }
      expect(stateHash).toBe(sha256(disk!));
      expect(pending).toBe(0);
      expect(recordExternalChanges(ctx)).toEqual([]); // the database already knows what is on disk

      if (step === 'intent-recorded') {
        expect(messages.join('\n')).toMatch(/Cancelled the interrupted rollback .* file is unchanged/);
        // The cancelled rollback can simply be run again.
        await rollbackWrite(ctx, { auditId: id });
        expect(readMemoryFile(f.dir, 'MEMORY.md')).toBe(BEFORE);
      }
      if (step === 'file-written') expect(messages.join('\n')).toMatch(/Finished the interrupted rollback .* recorded now/);
      if (step === 'lock-acquired' || step === 'committed') expect(messages).toEqual([]);
      db.close();
    },
    120_000,
  );
});

describe('reconcilePending', () => {
  it('cancels an interrupted rollback whose file someone changed since, recording the change as external', async () => {
    const f = makeFixture();
    f.write('MEMORY.md', BEFORE);
    recordExternalChanges(f.ctx);
    const id = f.pluginWrite('MEMORY.md', AFTER);
    f.close();
    const child = spawnSync('node', [bin, 'guardian', 'rollback', id, '--workspace', f.dir], {
      env: { ...process.env, REFLECTION_FAULT: 'file-written' },
      encoding: 'utf8',
    });
    expect(child.signal).toBe('SIGKILL');
    f.write('MEMORY.md', '# Memory\n- rewritten by a text editor\n');

    const { db } = openWorkspaceDatabase(f.dir);
    const ctx: ServiceContext = { db, workspaceDir: f.dir };
    const messages = await reconcilePending(ctx);
    expect(messages.join('\n')).toMatch(/has since been changed by someone else/);
    expect(db.prepare('SELECT status FROM write_guardian_audit WHERE id = ?').pluck().get(id)).toBe('written');
    const ext = db
      .prepare("SELECT diff FROM write_guardian_audit WHERE source = 'external' ORDER BY created_at DESC LIMIT 1")
      .pluck()
      .get();
    expect(ext).toContain('+- rewritten by a text editor');
    expect(db.prepare("SELECT content_hash FROM file_state WHERE file_name = 'MEMORY.md'").pluck().get()).toBe(
      sha256('# Memory\n- rewritten by a text editor\n'),
    );
    expect(await reconcilePending(ctx)).toEqual([]);
    db.close();
  }, 120_000);

  it('a rollback on the same file settles the interrupted operation first instead of refusing', async () => {
    const f = makeFixture();
    f.write('MEMORY.md', BEFORE);
    recordExternalChanges(f.ctx);
    const id = f.pluginWrite('MEMORY.md', AFTER);
    const later = f.pluginWrite('MEMORY.md', `${AFTER}- another fact\n`);
    f.close();
    const child = spawnSync('node', [bin, 'guardian', 'rollback', later, '--workspace', f.dir], {
      env: { ...process.env, REFLECTION_FAULT: 'file-written' },
      encoding: 'utf8',
    });
    expect(child.signal).toBe('SIGKILL');

    const { db } = openWorkspaceDatabase(f.dir);
    const ctx: ServiceContext = { db, workspaceDir: f.dir };
    await rollbackWrite(ctx, { auditId: id }); // waits out the stale lock, finishes the crashed rollback, then undoes `id`
    expect(readMemoryFile(f.dir, 'MEMORY.md')).toBe(BEFORE);
    expect(db.prepare('SELECT status FROM write_guardian_audit WHERE id IN (?, ?) ORDER BY created_at').pluck().all(id, later)).toEqual([
      'rolled_back',
      'rolled_back',
    ]);
    expect(db.prepare('SELECT message FROM file_operations WHERE audit_id = ?').pluck().get(later)).toMatch(
      /^Finished the interrupted rollback/,
    );
    expect(recordExternalChanges(ctx)).toEqual([]);
    db.close();
  }, 120_000);
});
