// Issue 16: the export writes CSV rows, counts sample languages and compares preference answers without the
// general code it used before (Papa Parse's unparse per row, a regular-expression match array per script,
// two normalized copies of every answer). All must give exactly what that code gave; the references below
// are the old code, run side by side on awkward input.
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { CSV_FORMULA, EXCEL_CELL_LIMIT, csvLine, fitCells, sampleLanguage } from '../../src/core/dataset/exportRecords';
import { isoTime, sameAnswer } from '../../src/core/dataset/formats';
import { forEachText } from '../../src/core/dataset/privacy';

const papaLine = (row: (string | number | null)[]) => Papa.unparse([row], { header: false, newline: '\r\n', escapeFormulae: CSV_FORMULA });

/** sampleLanguage as it was: a match array per script over every text field not named like an id. */
function languageBefore(content: unknown): string | null {
  const scripts: [string, RegExp][] = [
    ['zh', /\p{Script=Han}/gu],
    ['ja', /[\p{Script=Hiragana}\p{Script=Katakana}]/gu],
    ['ko', /\p{Script=Hangul}/gu],
    ['ru', /\p{Script=Cyrillic}/gu],
    ['en', /\p{Script=Latin}/gu],
  ];
  const notText =
    /(^|\.)(type|correctDecision|incorrectDecision|decision|label|targetFile|correctedTargetFile|role|status|conversationId)$/;
  const counts = new Map<string, number>(scripts.map(([lang]) => [lang, 0]));
  forEachText(content, (field, text) => {
    if (notText.test(field)) return;
    const ascii = Buffer.byteLength(text, 'utf8') === text.length;
    const other = ascii ? '' : text.replace(/[\x00-\x7f]+/g, '');
    for (const [lang, re] of scripts) {
      if (lang !== 'en' && !other) continue;
      counts.set(lang, counts.get(lang)! + ((lang === 'en' ? text : other).match(re)?.length ?? 0));
    }
  });
  if (counts.get('ja')! > 0 && counts.get('ja')! * 5 >= counts.get('zh')!) counts.set('ja', counts.get('ja')! + counts.get('zh')!);
  let best: string | null = null;
  let n = 0;
  for (const [lang, c] of counts) {
    const weight = lang === 'en' || lang === 'ru' ? c / 5 : c;
    if (weight > n) [best, n] = [lang, weight];
  }
  return best;
}

describe('export fast paths write what the general code wrote', () => {
  it('a CSV row is Papa Parse unparse, byte for byte', () => {
    const cells = [
      '',
      ' ',
      'a',
      ' lead',
      'trail ',
      'a,b',
      'say "hi"',
      '"',
      'line\nbreak',
      'cr\rhere',
      '\ufeffbom',
      '=SUM(A1)',
      '+1',
      '-2',
      '@x',
    ];
    cells.push('\tTab', '\rCR', "'quoted", '中文,逗号', 'x'.repeat(40), '=a"b', ' =not formula');
    const values: (string | number | null)[] = [...cells, 0, -1.5, 0.85, 1e21, Number.NaN, null];
    for (let i = 0; i < values.length; i++) {
      const row = [values[i]!, values[(i * 7) % values.length]!, values[(i * 13 + 5) % values.length]!];
      expect(csvLine(row)).toBe(papaLine(row));
    }
    expect(csvLine([])).toBe(papaLine([]));
  });

  it('the language of a sample is the one the regular expressions found', () => {
    const texts = [
      'Hello there',
      '我喜欢绿茶',
      'カタカナとひらがな、漢字',
      '안녕하세요',
      'Привет мир',
      'Ça va, José? ﬁne',
      '中文 mixed with English words',
    ];
    texts.push('𠀀𠀁 astral Han', '\ud840a\udc00 lone surrogates joined', 'ｆｕｌｌｗｉｄｔｈ', '123 456 !!!', '', 'ªº');
    for (const a of texts) {
      for (const b of texts) {
        const content = {
          type: 'memory_gate_positive',
          conversation: [
            { role: 'user', message: a },
            { role: 'agent', message: b },
          ],
          correctDecision: 'UPDATE_USER',
          label: a,
          targetFile: 'USER.md',
          labels: [b, { decision: a, note: b }],
          nested: { 'x.type': a, type: { deeper: b } },
        };
        expect(sampleLanguage(content), `${a} | ${b}`).toBe(languageBefore(content));
      }
    }
  });
});

describe('preference answers that say the same thing', () => {
  it('compare as the lower-cased, space-collapsed, trimmed strings did', () => {
    const before = (a: string, b: string) => a.toLowerCase().replace(/\s+/g, ' ').trim() === b.toLowerCase().replace(/\s+/g, ' ').trim();
    const parts = [
      'Decision: WRITE',
      'decision: write',
      ' ',
      '\t\n',
      '\r\n ',
      '\v\f',
      '\u00a0',
      '\u3000',
      '\ufeff',
      '\u2028',
      'İ',
      'i̇',
      'Σ',
      'ς',
      'É',
      'é',
      'ß',
      'SS',
      '\u0085',
      'x',
    ];
    const texts = [''];
    for (const a of parts) for (const b of parts) texts.push(a + b, ` ${a}${b} `, `${a} ${b}`, `${a}\n${b}\u00a0`);
    let equal = 0;
    for (let i = 0; i < texts.length; i++) {
      for (const j of [i, (i * 7 + 3) % texts.length, (i * 13 + 1) % texts.length, (i + 1) % texts.length]) {
        const [a, b] = [texts[i]!, texts[j]!];
        const want = before(a, b);
        if (want && a !== b) equal++;
        expect(sameAnswer(a, b), JSON.stringify([a, b])).toBe(want);
        expect(sameAnswer(b.toUpperCase(), a), JSON.stringify([b, a])).toBe(before(b.toUpperCase(), a));
      }
    }
    // the list holds pairs that differ only in case and spacing, not just identical ones
    expect(equal).toBeGreaterThan(20);
  });

  it('a CSV time is Date.toISOString, and a row is copied only when a cell is cut', () => {
    const times = [0, 1, 999, 59_999, 86_399_999, 86_400_000, 951_782_400_000, 1_700_000_000_123, 253_402_300_799_999];
    for (let t = 1_600_000_000_000; t < 1_600_000_000_000 + 3 * 86_400_000; t += 7_777_777) times.push(t, t + 1);
    for (const t of times) expect(isoTime(t), String(t)).toBe(new Date(t).toISOString());
    for (const t of [-1, 1.5, 253_402_300_800_000]) expect(isoTime(t)).toBe(new Date(t).toISOString());
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    const row = ['a', 1, null, 'b'];
    expect(fitCells(row)).toEqual({ row, cut: 0 });
    expect(fitCells(row).row).toBe(row);
    const long = ['x', 'y'.repeat(EXCEL_CELL_LIMIT + 5)];
    const fitted = fitCells(long);
    expect(fitted.cut).toBe(1);
    expect(fitted.row[0]).toBe('x');
    expect((fitted.row[1] as string).length).toBeLessThanOrEqual(EXCEL_CELL_LIMIT - 1);
    expect(fitted.row[1]).toMatch(/…\[truncated \d+ characters; the raw export has the full text\]$/);
    expect(long[1]).toHaveLength(EXCEL_CELL_LIMIT + 5);
  });
});
