// The recorder as a plugin would install it: `npm pack`, unpacked into a temporary project as npm
// lays it out, loaded by plain Node 20 (no tsx, no TypeScript) through require() and import.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

describe('packed recorder', () => {
  it('loads with require() and import on plain Node from a packed tarball, and records through its writer thread', () => {
    const dir = tempWorkspace('recorder-pack-');
    // prepack builds dist/recorder; --json names the tarball.
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
        cwd: repoRoot,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const [pack] = packed;
    if (!pack) throw new Error('npm pack packed nothing');
    const files = pack.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/recorder/index.cjs',
        'dist/recorder/index.mjs',
        'dist/recorder/worker.cjs',
        'dist/recorder/types/recorder/index.d.ts',
        'migrations/0110_plugin_logs.sql',
      ]),
    );
    expect(files.some((f) => f.startsWith('tests/') || f.startsWith('node_modules/'))).toBe(false);

    // npm's layout: the package under node_modules, and the one runtime dependency the entry needs.
    const project = path.join(dir, 'plugin-project');
    const installed = path.join(project, 'node_modules', 'reflection-workbench');
    fs.mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', path.join(dir, pack.filename), '-C', installed, '--strip-components=1']);
    fs.symlinkSync(path.join(repoRoot, 'node_modules', 'better-sqlite3'), path.join(project, 'node_modules', 'better-sqlite3'), 'dir');
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'plugin-project', private: true }));

    const workspace = tempWorkspace('recorder-pack-ws-');
    const node = (args: string[]) =>
      execFileSync(process.execPath, args, { cwd: project, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(
      node([
        '-e',
        "const r = require('reflection-workbench/recorder'); console.log(typeof r.createRecorder, typeof r.openRecorder)",
      ]).trim(),
    ).toBe('function function');
    const esm = node([
      '--input-type=module',
      '-e',
      `import { createRecorder } from 'reflection-workbench/recorder';
       const r = createRecorder({ workspaceDir: ${JSON.stringify(workspace)} });
       const turnId = r.recordTurn({ sessionId: 's', userMessage: { content: 'hi' }, agentReply: { content: 'hello' } });
       const decisionId = r.recordDecision({ turnId, sessionId: 's', decision: 'UPDATE_USER', reason: 'pref', candidateFact: 'likes tea' });
       r.recordWrite({ decisionId, status: 'written', targetFile: 'USER.md', before: '# USER\\n', after: '# USER\\n- likes tea\\n' });
       console.log(JSON.stringify(await r.close()));`,
    ]);
    expect(JSON.parse(esm)).toMatchObject({ recorded: 3, dropped: 0, failed: 0, queued: 0 });
    const diff = node([
      '-e',
      `const db = require('better-sqlite3')(${JSON.stringify(path.join(workspace, '.openclaw-reflection', 'reflection.db'))}); console.log(db.prepare('SELECT diff FROM write_guardian_audit').pluck().get())`,
    ]);
    expect(diff).toContain('+- likes tea');
  });
});
