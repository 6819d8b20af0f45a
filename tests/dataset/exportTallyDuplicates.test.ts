import { describe, expect, it } from 'vitest';
import { ExportTally } from '../../src/core/dataset/exportRecords';

const target = { model: 'gpt-4o', encoding: 'o200k_base', limit: 8192 };

describe('the tally of identical records', () => {
  it('drops the same records whether it keeps their texts or, past its budget, their digests', () => {
    const records = Array.from({ length: 60 }, (_, i) => JSON.stringify({ prompt: `p${i % 7}`, completion: `c${i % 5}` }));
    const verdicts = (keptTextChars: number) => {
      const tally = new ExportTally('alpaca', target, null, keptTextChars);
      const kept = records.map((text, i) => tally.firstTime(text, `s${i}`));
      return { kept, dropped: tally.duplicatesDropped, ids: tally.duplicateSampleIds };
    };
    const all = verdicts(1 << 20);
    expect(all.dropped).toBe(60 - new Set(records).size);
    expect(all.dropped).toBeGreaterThan(0);
    // texts only, digests from the first record on, and a switch midway
    for (const budget of [0, 200, 700]) expect(verdicts(budget)).toEqual(all);
  });

  it('takes a Parquet row hash as its key', () => {
    const tally = new ExportTally('parquet', target, null, 0);
    expect([tally.firstTime('h1', 'a', true), tally.firstTime('h1', 'b', true), tally.firstTime('h2', 'c', true)]).toEqual([
      true,
      false,
      true,
    ]);
    expect(tally.duplicateSampleIds).toEqual(['b']);
  });
});
