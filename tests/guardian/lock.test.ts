import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryFilePath, readMemoryFile, writeMemoryFile } from '../../src/core/files/memoryFiles';
import { recordExternalChanges } from '../../src/core/guardian/external';
import { rollbackWrite } from '../../src/core/guardian/rollback';
import { repoRoot, tempWorkspace } from '../helpers/workspace';
import { makeFixture } from './fixture';

const holder = path.join(__dirname, 'helpers', 'lock-holder.cjs');

function holdLock(file: string, ms: number): { child: ChildProcessWithoutNullStreams; locked: Promise<void>; done: Promise<string> } {
  const child = spawn('node', [holder, file, String(ms)], { cwd: repoRoot });
  let out = '';
  let onLocked: () => void;
  const locked = new Promise<void>((r) => (onLocked = r));
  const done = new Promise<string>((resolve) => {
    child.stdout.on('data', (d) => {
      out += String(d);
      if (out.includes('locked\n')) onLocked();
    });
    child.on('exit', () => resolve(out));
  });
  return { child, locked, done };
}

describe('the plugin lock', () => {
  it('a rollback waits while another process holds the lock, never writes under it, then succeeds', async () => {
    const f = makeFixture();
    f.write('USER.md', '# User\n');
    recordExternalChanges(f.ctx);
    const id = f.pluginWrite('USER.md', '# User\n- a fact\n');
    const h = holdLock(path.join(f.dir, 'USER.md'), 1500);
    await h.locked;
    const t0 = Date.now();
    const r = await rollbackWrite(f.ctx, { auditId: id });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(await h.done).toContain('unchanged-under-lock');
    expect(r.mode).toBe('restore');
    expect(f.read('USER.md')).toBe('# User\n');
    f.close();
  });

  it('gives up with a clear Locked error when the lock stays held, leaving file and database untouched', async () => {
    const f = makeFixture();
    f.write('USER.md', '# User\n');
    recordExternalChanges(f.ctx);
    const id = f.pluginWrite('USER.md', '# User\n- a fact\n');
    const h = holdLock(path.join(f.dir, 'USER.md'), 3000);
    await h.locked;
    await expect(rollbackWrite(f.ctx, { auditId: id, lock: { timeoutMs: 800 } })).rejects.toMatchObject({
      kind: 'Locked',
      message: expect.stringMatching(/USER\.md is locked by another writer .* nothing was written/),
    });
    expect(await h.done).toContain('unchanged-under-lock');
    expect(f.read('USER.md')).toBe('# User\n- a fact\n');
    expect(f.db.prepare('SELECT status FROM write_guardian_audit WHERE id = ?').pluck().get(id)).toBe('written');
    expect(f.db.prepare('SELECT count(*) FROM file_operations').pluck().get()).toBe(0);
    f.close();
  });
});

describe('memoryFiles', () => {
  it('writes and deletes only the five memory files inside the workspace', async () => {
    const dir = tempWorkspace();
    await writeMemoryFile(dir, 'MEMORY.md', '# Memory\n');
    expect(readMemoryFile(dir, 'MEMORY.md')).toBe('# Memory\n');
    expect(fs.readdirSync(dir).sort()).toEqual(['MEMORY.md']); // no temp or lock files left behind
    await writeMemoryFile(dir, 'MEMORY.md', null);
    expect(readMemoryFile(dir, 'MEMORY.md')).toBeNull();
    expect(() => memoryFilePath(dir, '../USER.md')).toThrow(/'\.\.' is not allowed/);
    expect(() => memoryFilePath(dir, path.join(dir, 'USER.md'))).toThrow(/absolute paths are not allowed/);
    expect(() => memoryFilePath(dir, 'notes.md')).toThrow(/not a memory file/);
    const outside = tempWorkspace();
    fs.writeFileSync(path.join(outside, 'secret.md'), 'secret\n');
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(dir, 'SOUL.md'));
    await expect(writeMemoryFile(dir, 'SOUL.md', 'overwritten')).rejects.toThrow(/symlink that leaves the workspace/);
    expect(fs.readFileSync(path.join(outside, 'secret.md'), 'utf8')).toBe('secret\n');
    // A symlink that stays inside the workspace is followed.
    fs.writeFileSync(path.join(dir, 'real-tools.md'), 'tools\n');
    fs.symlinkSync(path.join(dir, 'real-tools.md'), path.join(dir, 'TOOLS.md'));
    await writeMemoryFile(dir, 'TOOLS.md', 'tools v2\n');
    expect(fs.readFileSync(path.join(dir, 'real-tools.md'), 'utf8')).toBe('tools v2\n');
  });
});
