import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { generateDemoWorkspace } from '../../src/core/demo';
import { collectSamples, detectFeedbackSignals, exportDataset, fingerprint, jaccard, minhash, similarity } from '../../src/core/dataset';
import { tempWorkspace } from '../helpers/workspace';
import { readJsonl, validateChatExamples } from './openaiValidator';

describe('feedback signal lexicons', () => {
  const types = (text: string) => [...new Set(detectFeedbackSignals(text).map((s) => s.type))].sort();

  it.each([
    ['这不是我要的效果', ['reject']],
    ["That's not what I asked for.", ['reject']],
    ['不是这个文件，应该是 config.yaml', ['correction']],
    ['Actually, it should be config.yaml', ['correction']],
    ['而且不能用 root 用户', ['constraint']],
    ['Also, never use sudo for this.', ['constraint']],
    ['可以了，这次对了', ['success']],
    ['It works now, thanks!', ['success']],
    ['为什么会这样？', ['confusion']],
    ["I don't understand what you mean", ['confusion']],
    ['我更喜欢用 pnpm', ['preference']],
    ['I prefer pnpm over npm.', ['preference']],
    ['The weather in Paris is mild in May.', []],
    ['明天下午三点开会。', []],
  ])('%s -> %j', (text, expected) => {
    expect(types(text)).toEqual(expected);
  });

  it('quotes the clause as evidence, with a confidence', () => {
    const [s] = detectFeedbackSignals('Here is the log. That is wrong, the port is 8080! Anyway.');
    expect(s).toMatchObject({ type: 'reject', evidence: 'That is wrong, the port is 8080!', language: 'en', source: 'user' });
    expect(s!.confidence).toBeGreaterThanOrEqual(0.5);
  });
});

describe('MinHash near duplicates', () => {
  const base = 'The user prefers morning check-ins at nine on weekdays and wants a short agenda sent the evening before each meeting.';
  it('finds near duplicates at or above 0.85, related texts between 0.60 and 0.85, and unrelated texts below', () => {
    // the thresholds apply to the exact shingle Jaccard; MinHash only proposes candidates and stays close to it
    const near = base.replace('nine', '9');
    const related = 'The user prefers morning check-ins at ten on weekends and wants a short agenda sent the evening before each meeting.';
    expect(jaccard(base, near)).toBeGreaterThanOrEqual(0.85);
    expect(jaccard(base, related)).toBeGreaterThanOrEqual(0.6);
    expect(jaccard(base, related)).toBeLessThan(0.85);
    expect(jaccard(base, '用户喜欢喝茉莉花茶，每天下午一杯。')).toBeLessThan(0.2);
    for (const other of [near, related])
      expect(Math.abs(similarity(minhash(base), minhash(other)) - jaccard(base, other))).toBeLessThan(0.2);
    expect(similarity(minhash(base), minhash('用户喜欢喝茉莉花茶，每天下午一杯。'))).toBeLessThan(0.2);
    expect(similarity(minhash('用户喜欢喝茉莉花茶，每天下午一杯。'), minhash('用户喜欢喝茉莉花茶，每天下午一杯！'))).toBe(1);
  });

  it('fingerprints normalized content (case, width, punctuation, spaces)', () => {
    expect(fingerprint(['Prefers  Morning Check-ins!'])).toBe(fingerprint(['prefers morning check ins']));
    expect(fingerprint(['ＡＢＣ１２３'])).toBe(fingerprint(['abc123']));
    expect(fingerprint(['a'])).not.toBe(fingerprint(['b']));
  });
});

describe('on a generated demo workspace', () => {
  it('collects, and every OpenAI export passes the cookbook checks without leaking PII', async () => {
    const ws = tempWorkspace('reflection-dataset-demo-');
    generateDemoWorkspace(ws, { sessions: 12, seed: 5 });
    const { db } = openWorkspaceDatabase(ws);
    const ctx = { db, workspaceDir: ws };
    const result = await collectSamples(ctx, { autoApprove: true });
    expect(result.addedTotal).toBeGreaterThan(20);
    expect(result.added.memory_gate_negative).toBeGreaterThan(0);
    const values = (db.prepare('SELECT pii_spans FROM dataset_samples WHERE pii_spans IS NOT NULL').pluck().all() as string[]).flatMap(
      (s) => (JSON.parse(s) as { value: string }[]).map((x) => x.value),
    );
    expect(values.length).toBeGreaterThan(0);
    const r = await exportDataset(ctx, { format: 'openai', outDir: `${ws}/openai` });
    for (const file of r.files.slice(0, 2)) {
      const text = fs.readFileSync(file.path, 'utf8');
      expect(validateChatExamples(readJsonl(text))).toEqual({});
      for (const v of values) expect(text.includes(v)).toBe(false);
    }
    db.close();
  });
});
