// Token counts in the export summary (issue 16): the tokenizer is loaded only when an example could be
// over the target model's limit (its UTF-8 bytes bound its tokens); such an example is counted exactly,
// every other one is estimated. Uses the real gpt-tokenizer encoding through the tally's loader.
import { describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { alpacaRecord, type DatasetSample, type SampleContent } from '../../src/core/dataset';
import { ExportTally, recordsOf } from '../../src/core/dataset/exportRecords';

const LIMIT = 16_385;

function gateSample(id: string, userText: string): { sample: DatasetSample; content: SampleContent } {
  const content = {
    type: 'memory_gate_positive',
    conversation: [
      { role: 'user', message: userText },
      { role: 'agent', message: 'Noted.' },
    ],
    correctDecision: 'UPDATE_USER',
    correctFact: 'The user likes green tea.',
    reason: 'A stable preference.',
    evidence: { wasWritten: true },
  } as unknown as SampleContent;
  return { sample: { id, sampleType: 'memory_gate_positive', sessionId: 's', content } as DatasetSample, content };
}

function tally(): { t: ExportTally; loads: () => number } {
  let loads = 0;
  const t = new ExportTally('alpaca', { model: 'gpt-3.5-turbo', encoding: 'cl100k_base', limit: LIMIT }, async () => {
    loads++;
    return countTokens;
  });
  return { t, loads: () => loads };
}

describe('export token counts', () => {
  it('estimates small examples without loading the tokenizer', async () => {
    const { t, loads } = tally();
    for (let i = 0; i < 20; i++) {
      const { sample, content } = gateSample(`s${i}`, `I like green tea, note ${i}. 我喜欢绿茶。`);
      t.add(sample, content, recordsOf('alpaca', sample, content, 's'));
      expect(t.hasPending).toBe(false);
    }
    await t.countPending();
    expect(loads()).toBe(0);
    expect(t.tokens.estimated).toBe(true);
    expect(t.tokens.overLimit).toBe(0);
    // within a quarter of what the tokenizer says for the same examples
    const r = alpacaRecord(gateSample('x', 'I like green tea, note 10. 我喜欢绿茶。').content);
    const exact = 20 * (3 + 3 * 3 + countTokens(r.instruction) + countTokens(r.input) + countTokens(r.output));
    expect(t.tokens.total / exact).toBeGreaterThan(0.75);
    expect(t.tokens.total / exact).toBeLessThan(1.33);
  });

  it('counts an example that could be over the limit with the tokenizer, and names it when it is', async () => {
    const { t, loads } = tally();
    const long = gateSample('long', 'tea '.repeat(20_000));
    t.add(long.sample, long.content, recordsOf('alpaca', long.sample, long.content, 's'));
    expect(t.hasPending).toBe(true);
    await t.countPending();
    expect(loads()).toBe(1);
    const r = alpacaRecord(long.content);
    const exact = 3 + 3 * 3 + countTokens(r.instruction) + countTokens(r.input) + countTokens(r.output);
    expect(exact).toBeGreaterThan(LIMIT);
    expect(t.tokens.max).toBe(exact);
    expect(t.tokens.overLimit).toBe(1);
    expect(t.tokens.sampleIds).toEqual(['long']);
    // a second one reuses the loaded tokenizer
    const again = gateSample('again', 'coffee '.repeat(20_000));
    t.add(again.sample, again.content, recordsOf('alpaca', again.sample, again.content, 's'));
    expect(t.hasPending).toBe(false);
    expect(t.tokens.overLimit).toBe(2);
    expect(loads()).toBe(1);
  });
});
