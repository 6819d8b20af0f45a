// The export writes a stored JSON text in place of serializing its parsed value only when
// isStringifyForm says the two are the same: it must never say so for a text they differ on.
import { describe, expect, it } from 'vitest';
import { isStringifyForm } from '../../src/core/dataset/canonicalJson';

const same = (text: string) => {
  try {
    return JSON.stringify(JSON.parse(text)) === text;
  } catch {
    return false;
  }
};

/** A seeded generator, so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const PIECES = ['a', 'é', '中', '😀', '\ud800', '\udc00', '"', '\\', '\n', '\u0001', '\u001f', '\u2028', '/', ' ', '0', '1'];
const ESCAPES = ['\\n', '\\t', '\\u000a', '\\u001f', '\\u001F', '\\u0041', '\\/', '\\ud800', '\\"', '\\\\', '\\b', '\\u0008', '\\u000b'];
const NUMBERS = [
  '0',
  '-0',
  '1',
  '1.5',
  '1.0',
  '1e3',
  '1E3',
  '0.1',
  '0.10',
  '00',
  '-1',
  '1e21',
  '1e+21',
  '0.0000001',
  '1e-7',
  '123456789012345678',
  '.5',
  '5.',
  '-',
];

function randomText(next: () => number, depth = 0): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const str = () => {
    let s = '"';
    const n = Math.floor(next() * 4);
    for (let i = 0; i < n; i++) s += next() < 0.7 ? JSON.stringify(pick(PIECES)).slice(1, -1) : next() < 0.5 ? pick(PIECES) : pick(ESCAPES);
    return `${s}"`;
  };
  const r = next();
  if (depth > 3 || r < 0.3) return r < 0.1 ? pick(NUMBERS) : r < 0.15 ? pick(['true', 'false', 'null', 'nul', 'True']) : str();
  const n = Math.floor(next() * 4);
  const ws = () => (next() < 0.05 ? ' ' : '');
  if (r < 0.6) return `[${ws()}${Array.from({ length: n }, () => randomText(next, depth + 1)).join(`,${ws()}`)}]`;
  const keys = ['a', 'b', '0', '1a', '__proto__', '', 'a\\n', 'é'];
  return `{${Array.from({ length: n }, () => `${next() < 0.8 ? JSON.stringify(pick(keys)) : str()}:${ws()}${randomText(next, depth + 1)}`).join(',')}}`;
}

describe('isStringifyForm', () => {
  it('accepts what JSON.stringify writes', () => {
    const values = [
      { type: 'memory_gate_positive', conversation: [{ role: 'user', message: 'Hi "there"\n\u0001 中文 😀' }], n: 0.45, z: null, t: true },
      [],
      {},
      'x',
      -12.5,
      { labels: { criteria: { wasWritten: true } }, ids: ['01KD', '01KE'], 'a-b': [[]], e: '\u007f\u2028' },
    ];
    for (const v of values) expect(isStringifyForm(JSON.stringify(v))).toBe(true);
  });

  it('refuses what JSON.stringify would write otherwise', () => {
    for (const text of [
      '{"a":1,"a":2}',
      '{"1":1,"b":2}',
      '{"a": 1}',
      ' {}',
      '"\\/"',
      '"\\u0041"',
      '"\\u000A"',
      '"\\u000a"',
      '1.0',
      '-0',
      '"\ud800"',
      '"\\ud800"',
      '{"a":1}x',
      '',
      '{"a"}',
      '[1,]',
      '"\u0001"',
    ])
      expect(isStringifyForm(text), text).toBe(false);
  });

  it('never accepts a text that JSON.stringify(JSON.parse(text)) changes (random texts)', () => {
    const next = rng(16);
    let accepted = 0;
    for (let i = 0; i < 50_000; i++) {
      const text = randomText(next);
      const ok = isStringifyForm(text);
      if (ok) accepted++;
      if (ok && !same(text)) throw new Error(`accepted ${JSON.stringify(text)}`);
    }
    // the generator makes canonical texts often enough for the test to mean something
    expect(accepted).toBeGreaterThan(5_000);
  });
});
