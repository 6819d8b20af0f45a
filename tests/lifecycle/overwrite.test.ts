// Issue 14 item 3 from the CLI: every command that writes a file refuses an existing one unless
// --overwrite is given, and the refused file keeps its content.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { generateDemoWorkspace } from '../../src/core/demo';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

const cli = (...args: string[]) => spawnSync('node', [path.join(repoRoot, 'bin', 'reflection.cjs'), ...args], { encoding: 'utf8' });

describe('file-writing commands refuse to overwrite', () => {
  it('gate export, guardian export, export-conversations and dataset export need --overwrite', () => {
    const dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 3, seed: 5 });
    const mine = '# my own notes\n';
    const cases: { args: (out: string) => string[]; out: string; file: string }[] = [
      { args: (o) => ['gate', 'export', '-o', o], out: 'decisions.json', file: 'decisions.json' },
      { args: (o) => ['guardian', 'export', '-o', o], out: 'audits.json', file: 'audits.json' },
      { args: (o) => ['export-conversations', '-o', o], out: 'conversations.jsonl', file: 'conversations.jsonl' },
      { args: (o) => ['dataset', 'export', '--format', 'openai', '-o', o], out: 'dataset', file: path.join('dataset', 'README.md') },
    ];
    for (const c of cases) {
      const out = path.join(dir, c.out);
      const target = path.join(dir, c.file);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, mine);
      const refused = cli(...c.args(out), '--workspace', dir);
      expect(refused.status, `${c.args(out).join(' ')}: ${refused.stderr}`).not.toBe(0);
      expect(refused.stderr).toMatch(/already exists.*--overwrite/);
      expect(fs.readFileSync(target, 'utf8'), c.file).toBe(mine);
      if (c.out === 'dataset') continue; // a demo workspace may have nothing approved to export
      const forced = cli(...c.args(out), '--workspace', dir, '--overwrite');
      expect(forced.status, forced.stderr).toBe(0);
      expect(fs.readFileSync(target, 'utf8')).not.toBe(mine);
    }
  }, 120_000);
});
