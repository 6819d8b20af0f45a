import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  precision,
  readFixture,
  recall,
  scoreDetectSecrets,
  scoreFixture,
  scoreGitleaks,
  scoreLabelled,
  scorePresidioFile,
  withInvisible,
} from '../../bench/pii-eval';
import { generatedCases } from '../../bench/pii-generated';
import { repoRoot, sharedDir } from '../helpers/workspace';
import { detectPii } from '../../src/core/pii/index';

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
  const files = [
    'pii-zh.jsonl',
    'pii-zh-hard.jsonl',
    'pii-url-credentials.jsonl',
    'pii-holdout.jsonl',
    'pii-heldout-cn.jsonl',
    'pii-heldout-2.jsonl',
  ];
  it.each(
    files.flatMap(
      (f) =>
        [
          [f, 'plain'],
          [f, 'invisible'],
        ] as const,
    ),
  )('%s (%s): recall >= 0.95 and precision >= 0.90 per type, no leak', (file, variant) => {
    const r = scoreFixture(path.join(repoRoot, 'tests', 'fixtures', file), {}, variant);
    expect(r.rows).toBeGreaterThanOrEqual(20);
    for (const [type, t] of Object.entries(r.perType)) {
      expect(recall(t), `${type}\n${r.failures.join('\n')}`).toBeGreaterThanOrEqual(0.95);
      expect(precision(t), `${type}\n${r.failures.join('\n')}`).toBeGreaterThanOrEqual(0.9);
    }
    expect(r.leaks).toEqual({});
  });

  it('covers every targeted type, names included', () => {
    const types = new Set(files.flatMap((f) => Object.keys(scoreFixture(path.join(repoRoot, 'tests', 'fixtures', f)).perType)));
    for (const t of ['CN_ID', 'QQ', 'WECHAT', 'CN_PASSPORT', 'PERSON', 'PHONE', 'EMAIL', 'CARD', 'API_KEY']) expect(types).toContain(t);
  });

  it('the invisible variant really hides a character inside every value', () => {
    const [c] = readFixture(path.join(repoRoot, 'tests', 'fixtures', 'pii-heldout-cn.jsonl'));
    if (!c) throw new Error('the fixture is empty');
    const v = withInvisible(c, 0);
    expect(v.text.length).toBe(c.text.length + 1);
    expect(v.text.slice(v.gold[0]!.start, v.gold[0]!.end)).toMatch(/^\d+\u200b\d+$/);
  });

  it('generated set: recall >= 0.95 and precision >= 0.90 per type, as written and hidden', () => {
    const cases = generatedCases(30, 7);
    for (const r of [scoreLabelled(cases), scoreLabelled(cases.map((c, i) => withInvisible(c, i)))]) {
      for (const [type, t] of Object.entries(r.perType)) {
        expect(recall(t), `${type}\n${r.failures.join('\n')}`).toBeGreaterThanOrEqual(0.95);
        expect(precision(t), `${type}\n${r.failures.join('\n')}`).toBeGreaterThanOrEqual(0.9);
      }
      expect(r.leaks).toEqual({});
    }
  });
});

describe('a Chinese corpus nobody wrote for the detector', () => {
  it.each(['zh-cn', 'zh-tw'])('TypeScript diagnostics (%s) hold no personal data and none is flagged', (locale) => {
    const file = require.resolve(`typescript/lib/${locale}/diagnosticMessages.generated.json`);
    const messages = Object.values(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>);
    expect(messages.length).toBeGreaterThan(1000);
    const flagged = messages.flatMap((m) => detectPii(m).map((s) => `${s.type}: ${m}`));
    expect(flagged).toEqual([]);
  });
});
