import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, tempWorkspace } from '../helpers/workspace';
import { evalsDir, pluginRoot, pluginWorkspace, writeFile } from './helpers';

const cli = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'reflection.cjs'), ...args], { encoding: 'utf8', timeout: 60_000 });

describe('reflection import (CLI)', () => {
  it('prints a JSON report, exits 0 for a partial import and 1 when nothing could be read', () => {
    const ws = tempWorkspace();
    const ok = cli('import', 'reflection-logs', pluginRoot, '--plugin-workspace', pluginWorkspace, '--workspace', ws, '--json');
    expect(ok.status).toBe(0);
    const report = JSON.parse(ok.stdout);
    expect(report).toMatchObject({
      importer: 'reflection-logs',
      status: 'ok',
      inserted: { conversation_turns: 6, memory_gate_decisions: 5, memory_gate_failures: 1 },
    });
    expect(report.summary).toMatch(
      /^Imported 1 conversation, 6 turns, 5 memory_gate decisions, 1 failed memory_gate run, 3 write_guardian outcomes/,
    );

    const partial = writeFile(path.join(ws, 'in', 'mixed.jsonl'), '{"type":"session","version":3,"id":"m"}\nnot json\n');
    const p = cli('import', 'openclaw', partial, '--workspace', ws);
    expect(p.status).toBe(0);
    expect(p.stdout).toMatch(/mixed\.jsonl:2 +malformed JSON/);

    const bad = writeFile(path.join(ws, 'in', 'bad.jsonl'), 'not json\n{"type": 5}\n');
    const b = cli('import', 'openclaw', bad, '--workspace', ws);
    expect(b.status).toBe(1);
    expect(b.stdout).toMatch(/Nothing could be read/);

    const missing = cli('import', 'evals', path.join(ws, 'nowhere'), '--workspace', ws);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/does not exist/);

    const evals = cli('import', 'evals', evalsDir, '--workspace', ws);
    expect(evals.status).toBe(0);
    expect(evals.stdout).toMatch(/Imported 80 gold samples, 34 turns from 5 files of eval sets/);
  });
});
