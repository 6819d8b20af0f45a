// Issue 16, "the results are the same": every export format writes, for a fixed workspace, the same records,
// dataset card and summary as the code before the export speed work (tests/dataset/fixtures/export-snapshot.json,
// written by that code with `npx tsx tests/dataset/exportSnapshot.ts --write`; ids are numbered, see there).
import { describe, expect, it } from 'vitest';
import { EXPORT_FORMATS } from '../../src/shared/domain';
import { exportSnapshot, readExportFixture } from './exportSnapshot';
import { tempWorkspace } from '../helpers/workspace';

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
      expect(got.summary).toEqual(want.summary);
      expect(got.card).toBe(want.card);
    }
    // the fixture exercises what it claims to: preference pairs, token counts, redaction
    expect(expected['openai-dpo']?.total).toBeGreaterThan(20);
    expect((expected.openai?.summary as { tokens: { total: number } }).tokens.total).toBeGreaterThan(1000);
    expect(expected.raw?.card).toContain('redacted');
  }, 120_000);
});
