// Issue 16, "the results are the same": every export format writes, for a fixed workspace, the same records,
// dataset card and summary as the code before the export speed work (tests/dataset/fixtures/export-snapshot.json,
// written by that code with `npx tsx tests/dataset/exportSnapshot.ts --write`; ids are numbered, see there).
// One difference is intended: token totals are estimates unless an example could reach the model's limit.
import { describe, expect, it } from 'vitest';
import { EXPORT_FORMATS } from '../../src/shared/domain';
import { exportSnapshot, readExportFixture } from './exportSnapshot';
import { tempWorkspace } from '../helpers/workspace';

interface TokenFigures {
  total: number;
  max: number;
  estimated?: boolean;
}

const tokenFigures = (summary: unknown) => (summary as { tokens: TokenFigures | null }).tokens;
const ESTIMATE_NOTE = /^token totals are estimates/;

/** The summary without the token total and maximum, and without the note that says they are estimates. */
function withoutTokenFigures(summary: unknown): unknown {
  const s = summary as { tokens: Record<string, unknown> | null; notes: string[] };
  const tokens = s.tokens && Object.fromEntries(Object.entries(s.tokens).filter(([k]) => !['total', 'max', 'estimated'].includes(k)));
  return { ...s, tokens, notes: s.notes.filter((n) => !ESTIMATE_NOTE.test(n)) };
}

const maskTokenLine = (card: string) =>
  card
    .replace(/^(- Tokens \([^)]*\)): .*?; (\d+ over \d+)$/m, '$1: <figures>; $2')
    .replace(/^- token totals are estimates.*\n/m, '')
    .replace(/\n\n## Notes\n\n(?=\n)/, '\n');

describe('export results are unchanged by the speed work', () => {
  it('a fixed workspace exports to the stored files, card and summary in every format', async () => {
    const expected = readExportFixture();
    const actual = await exportSnapshot(tempWorkspace());
    expect(Object.keys(actual)).toEqual([...EXPORT_FORMATS]);
    for (const format of EXPORT_FORMATS) {
      // format by format, so a failure names the first format that differs
      const got = actual[format];
      const want = expected[format];
      if (!got || !want) throw new Error(`no ${format} export in the ${got ? 'stored fixture' : 'new run'}`);
      expect({ format, total: got.total, files: got.files }).toEqual({ format, total: want.total, files: want.files });
      const tokens = tokenFigures(got.summary);
      const counted = tokenFigures(want.summary);
      expect(withoutTokenFigures(got.summary)).toEqual(withoutTokenFigures(want.summary));
      expect(maskTokenLine(got.card)).toBe(maskTokenLine(want.card));
      if (!counted) {
        expect(tokens).toBeNull();
        continue;
      }
      // The intended difference: no example comes near the limit, so the tokenizer is not run and the
      // totals are estimates, within a quarter of the counts the tokenizer gave.
      expect(tokens?.estimated).toBe(true);
      expect(tokens!.total / counted.total).toBeGreaterThan(0.8);
      expect(tokens!.total / counted.total).toBeLessThan(1.25);
      expect(got.card).toContain(`about ${tokens!.total} in all`);
    }
    // the fixture exercises what it claims to: preference pairs, token counts, redaction
    expect(expected['openai-dpo']?.total).toBeGreaterThan(20);
    expect((expected.openai?.summary as { tokens: { total: number } }).tokens.total).toBeGreaterThan(1000);
    expect(expected.raw?.card).toContain('redacted');
  }, 120_000);
});
