// The workspace session: opening, the recent list, and what runs on open (external changes recorded).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/api/runtime';
import { generateDemoWorkspace } from '../../src/core/demo';
import { tempWorkspace } from '../helpers/workspace';

const runtimes: AppRuntime[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.close();
});

function runtime(stateDir: string): AppRuntime {
  const rt = createAppRuntime({ mode: 'web', stateDir, log: { warn: () => undefined } });
  runtimes.push(rt);
  return rt;
}

describe('workspace session', () => {
  it('keeps a recent list, newest first, and reopens the last workspace that exists', async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-state-'));
    const a = tempWorkspace();
    const b = tempWorkspace();
    const rt = runtime(stateDir);
    rt.session.open(a);
    rt.session.open(b);
    rt.session.open(a);
    expect(rt.session.recent().map((r) => r.dir)).toEqual([a, b]);
    expect(rt.session.lastWorkspace()).toBe(a);
    fs.rmSync(a, { recursive: true, force: true });
    expect(rt.session.recent()[0]).toMatchObject({ dir: a, exists: false });
    expect(rt.session.lastWorkspace()).toBe(b);
    expect(() => rt.session.open(path.join(b, 'missing'))).toThrow(/does not exist/);
    expect(rt.session.current().dir).toBe(a);
  });

  it('records memory-file edits made while the workspace was closed as external writes', async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-state-'));
    const dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 2 });
    const externals = (rt: AppRuntime) =>
      (
        rt.session.db
          .prepare("SELECT count(*) AS n FROM write_guardian_audit WHERE source = 'external' AND target_file = 'USER.md'")
          .get() as { n: number }
      ).n;
    const first = runtime(stateDir);
    first.session.open(dir);
    await first.services.ready();
    const before = externals(first);
    await first.close();
    fs.appendFileSync(path.join(dir, 'USER.md'), '- Edited by hand while the app was closed\n');
    const second = runtime(stateDir);
    second.session.open(dir);
    await second.services.ready();
    expect(externals(second)).toBe(before + 1);
    const r = await second.registry.dispatch('guardian.list', { source: 'external', file: 'USER.md', limit: 1 });
    expect(r).toMatchObject({ ok: true, value: { items: [{ source: 'external', status: 'written' }] } });
  });
});
