import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDemoWorkspace } from '../../src/core/demo';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

describe('reflection blame, health, erase and verify', () => {
  it('works from the command line', () => {
    const dir = tempWorkspace();
    generateDemoWorkspace(dir);
    const cli = (...args: string[]) =>
      spawnSync('node', [path.join(repoRoot, 'bin', 'reflection.cjs'), ...args, '--workspace', dir], { encoding: 'utf8' });
    const lines = fs.readFileSync(path.join(dir, 'USER.md'), 'utf8').split('\n');
    const phoneLine = lines.findIndex((l) => l.includes('phone for urgent issues')) + 1;

    const blame = cli('blame', 'USER.md', '--line', String(phoneLine), '--json');
    expect(blame.status).toBe(0);
    const b = JSON.parse(blame.stdout);
    expect(b.lines).toHaveLength(1);
    expect(b.lines[0]).toMatchObject({ line: phoneLine, text: lines[phoneLine - 1], write: { source: 'plugin', decision: 'UPDATE_USER' } });
    expect(b.lines[0].write.turnId).toBeTruthy();
    expect(cli('blame', 'NOTES.md').stderr).toMatch(/not a memory file/);

    const health = cli('health', '--json');
    const open = JSON.parse(health.stdout).open as Array<{ id: string; kind: string; attribute: string }>;
    const phone = open.find((f) => f.attribute === 'phone')!;
    expect(phone.kind).toBe('contradiction');
    expect(cli('health', 'resolve', phone.id).stderr).toMatch(/exactly one of/);
    const resolved = cli('health', 'resolve', phone.id, '--keep', '0', '--json');
    expect(resolved.status).toBe(0);
    expect(JSON.parse(resolved.stdout).finding.status).toBe('resolved');

    expect(cli('verify').status).toBe(0);
    const email = /[\w.]+@example\.com/.exec(lines.join('\n'))![0];
    const dry = cli('erase', email, '--dry-run', '--json');
    expect(JSON.parse(dry.stdout).places.length).toBeGreaterThan(1);
    expect(cli('erase', email).stderr).toMatch(/--yes/);
    expect(cli('erase', email, '--yes').status).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'USER.md'), 'utf8')).not.toContain(email);
    const verify = cli('verify');
    expect(verify.status).toBe(0);
    expect(verify.stdout).toMatch(/re-chained USER\.md[\s\S]*verify: ok/);
    fs.appendFileSync(path.join(dir, 'SOUL.md'), '- typed behind the recorder\n');
    const broken = cli('verify');
    expect(broken.status).toBe(1);
    expect(broken.stdout).toMatch(/disk_unrecorded/);
  }, 120_000);
});
