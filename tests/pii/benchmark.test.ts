import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { precision, recall, scoreDetectSecrets, scoreFixture, scoreGitleaks, scorePresidioFile } from '../../bench/pii-eval';
import { repoRoot, sharedDir } from '../helpers/workspace';

const piiDir = path.join(sharedDir, 'benchmarks', 'pii');
const haveData = fs.existsSync(piiDir);

// Accuracy, not speed: these recompute the benchmark's numbers on the public labelled sets.
describe.skipIf(!haveData)('PII benchmark aims', () => {
  it.each(['email', 'phone', 'credit_card', 'ip'])('presidio %s: recall >= 0.95 and precision >= 0.90', (name) => {
    const r = scorePresidioFile(path.join(piiDir, 'presidio-tests'), name);
    expect(r.tally.tp + r.tally.fn).toBeGreaterThan(5);
    expect(recall(r.tally), r.misses.join('\n')).toBeGreaterThanOrEqual(0.95);
    expect(precision(r.tally), r.falsePositives.join('\n')).toBeGreaterThanOrEqual(0.9);
  });

  it('presidio URL cases (no credentials in them) raise no URL-with-credentials span', () => {
    const r = scorePresidioFile(path.join(piiDir, 'presidio-tests'), 'url');
    expect(r.rows).toBeGreaterThan(10);
    expect(r.tally.fp).toBe(0);
  });

  it('secrets files: recall >= 0.90', () => {
    const ds = scoreDetectSecrets(path.join(piiDir, 'detect-secrets'));
    expect(ds.found / ds.expected).toBeGreaterThanOrEqual(0.9);
    expect(ds.perFile.find((f) => f.file === 'files_file_with_no_secrets.py.txt')?.extra).toEqual([]);
    const gl = scoreGitleaks(path.join(piiDir, 'gitleaks', 'generic-api-key_cases.jsonl'));
    expect(gl.found / gl.secretRows).toBeGreaterThanOrEqual(0.9);
    expect(gl.flagged / gl.negativeRows).toBeLessThanOrEqual(0.1);
  });
});

describe('own test sets', () => {
  it.each(['pii-zh.jsonl', 'pii-url-credentials.jsonl', 'pii-holdout.jsonl'])('%s: recall >= 0.95 and precision >= 0.90 per type', (file) => {
    const r = scoreFixture(path.join(repoRoot, 'tests', 'fixtures', file));
    expect(r.rows).toBeGreaterThanOrEqual(20);
    for (const [type, t] of Object.entries(r.perType)) {
      expect(recall(t), `${type}\n${r.failures.join('\n')}`).toBeGreaterThanOrEqual(0.95);
      expect(precision(t), `${type}\n${r.failures.join('\n')}`).toBeGreaterThanOrEqual(0.9);
    }
  });
});
