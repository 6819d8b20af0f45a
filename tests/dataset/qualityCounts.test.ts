import { describe, expect, it } from 'vitest';
import { scriptCounts } from '../../src/core/dataset/quality';

// What scriptCounts replaced: one array per count.
function reference(text: string) {
  return {
    len: [...text].length,
    letters: (text.match(/[\p{L}\p{N}]/gu) ?? []).length,
    cjk: (text.match(/[\u3400-\u9fff\uf900-\ufaff]/g) ?? []).length,
    latin: (text.match(/[A-Za-z]/g) ?? []).length,
  };
}

const FIXED = [
  '',
  'ok',
  'Thanks, perfect!',
  '我更喜欢用 pnpm',
  '晚上九点以后不开会',
  'Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３',
  'emoji 😀 and 𠀀 (an ideograph beyond the BMP)',
  'a lone high \ud800 surrogate, a lone low \udc00 one, and a pair at the end \ud83d\ude00',
  '\ud83d',
  'Ünïcödé café №5 ½ ² ٣ 一二三 ㈠ 豈 ﬀ',
  '   spaces   and\ttabs\n',
];

// Random strings drawn from ranges where the counts differ: ASCII, Latin-1, CJK, compatibility ideographs,
// surrogates (paired and lone), digits of other scripts.
function randomText(seed: number): string {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) & 0x7fffffff);
  const ranges: [number, number][] = [
    [0x20, 0x7e],
    [0xa0, 0x24f],
    [0x3400, 0x3410],
    [0x4e00, 0x4e40],
    [0x9ff0, 0xa010],
    [0xf8f0, 0xfb10],
    [0xd800, 0xdfff],
    [0x660, 0x669],
    [0x2150, 0x218f],
  ];
  let s = '';
  const n = next() % 40;
  for (let i = 0; i < n; i++) {
    const [lo, hi] = ranges[next() % ranges.length]!;
    s += String.fromCharCode(lo + (next() % (hi - lo + 1)));
  }
  return s;
}

describe('scriptCounts', () => {
  it('counts what the patterns count', () => {
    for (const t of FIXED) expect(scriptCounts(t), JSON.stringify(t)).toEqual(reference(t));
    for (let seed = 1; seed <= 20000; seed++) {
      const t = randomText(seed);
      expect(scriptCounts(t), JSON.stringify(t)).toEqual(reference(t));
    }
  });
});
