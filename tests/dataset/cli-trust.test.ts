// The issue-12 commands through the real CLI: missed-write, export with --balance and its summary,
// the empty-export error, cluster --pick, quality --json and eval-export.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/workspace';
import { miniWorkspace } from './miniTemp';

const cli = path.join(repoRoot, 'bin', 'reflection.cjs');

describe('dataset CLI for issue 12', () => {
  it('marks a missed write, exports balanced with a summary, picks a representative, reports quality and a held-out set', () => {
    const m = miniWorkspace();
    const missed = m.turn('s:0', 'My son is allergic to milk.', 'Oh.', { decision: 'NO_WRITE', reason: 'Not about the user.' });
    for (let i = 1; i < 8; i++) {
      m.turn(`s:${i}`, `Nice weather on day ${i}, we went to park number ${i}.`, 'Indeed.', {
        decision: 'NO_WRITE',
        reason: 'Small talk.',
      });
      m.turn(`s:${i}`, `I use editor number ${i} at work.`, 'Noted.', {
        decision: 'UPDATE_USER',
        fact: `uses editor ${i}`,
        write: { status: 'written', file: 'USER.md' },
      });
    }
    m.db.close();
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [cli, 'dataset', ...args, '-w', m.ws], { encoding: 'utf8', timeout: 60_000 });

    const empty = run('export', '--format', 'alpaca', '-o', path.join(m.ws, 'nothing'));
    expect(empty.status).not.toBe(0);
    expect(empty.stderr).toContain('run `reflection dataset collect`');

    expect(run('collect', '--auto-approve').status).toBe(0);
    const mw = run(
      'missed-write',
      missed.decisionId,
      '--fact',
      "User's son is allergic to milk",
      '--file',
      'USER.md',
      '--reason',
      'A lasting family fact.',
      '--json',
    );
    expect(mw.status, mw.stderr).toBe(0);
    expect(JSON.parse(mw.stdout)).toMatchObject({ decision: 'UPDATE_USER', addedSamples: 2, supersededSamples: 1 });
    const bad = run('missed-write', missed.decisionId, '--fact', 'x', '--file', 'NOTES.md', '--reason', 'x');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--file');

    const out = path.join(m.ws, 'balanced');
    const exp = run(
      'export',
      '--format',
      'alpaca',
      '-o',
      out,
      '--include-unreviewed',
      '--include-below-quality',
      '--balance',
      '--sample-types-ignored-check',
    );
    expect(exp.status).not.toBe(0); // an unknown option is refused, not ignored
    const ok = run('export', '--format', 'alpaca', '-o', out, '--include-unreviewed', '--include-below-quality', '--balance');
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/balance: memory_gate write (\d+) \/ NO_WRITE \1;/);
    expect(ok.stdout).toContain('included: approved, auto_approved, pending, needs_review, any quality');
    expect(fs.readFileSync(path.join(out, 'README.md'), 'utf8')).toContain('balanced on request');

    const list = JSON.parse(run('list', '--json', '-l', '100').stdout).items as { id: string; sampleType: string }[];
    const guardian = list.find((x) => x.sampleType === 'write_guardian_decision')!;
    const picked = run('cluster', guardian.id, '--pick', '--json');
    expect(picked.status, picked.stderr).toBe(0);
    expect(JSON.parse(picked.stdout)).toMatchObject({ representativeId: guardian.id, representativeBecause: 'pick' });

    const quality = JSON.parse(run('quality', '--json').stdout);
    expect(quality.writer.judgedDecisions).toBeGreaterThanOrEqual(1);
    expect(quality.writer.gate.find((g: { decision: string }) => g.decision === 'NO_WRITE').predicted).toBeGreaterThanOrEqual(1);

    const evals = path.join(m.ws, 'evals');
    const ev = run('eval-export', '-o', evals, '--train-split', '0.5', '--include-unreviewed', '--json');
    expect(ev.status, ev.stderr).toBe(0);
    expect(JSON.parse(ev.stdout).scenarios).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(evals, 'memory-gate', 'benchmark.jsonl'))).toBe(true);
  });
});
