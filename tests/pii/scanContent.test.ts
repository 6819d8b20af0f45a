// scanContent walks a sample's fields by their keys and builds a field's path only when it has spans; the spans
// must be those of the plain walk (forEachText's paths, the skipped fields, the conversationId probe). The
// two-generation cache keeps texts met again and forgets the rest.
import { describe, expect, it } from 'vitest';
import { PiiScanCache, forEachText, scanContent, type StoredPiiSpan } from '../../src/core/dataset/privacy';
import { detectPii, type DetectOptions, type PiiSpan } from '../../src/core/pii/index';

/** The walk scanContent made before it kept keys instead of paths. */
function plainScan(content: unknown, opts: DetectOptions): StoredPiiSpan[] {
  const spans: StoredPiiSpan[] = [];
  const skip = /(^|\.)(type|correctDecision|incorrectDecision|decision|label|targetFile|role|turnNumber)$/;
  forEachText(content, (field, text) => {
    if (!text || skip.test(field)) return;
    const probe = field.endsWith('conversationId') ? text.replace(/[:/]/g, ' ') : text;
    for (const s of detectPii(probe, opts)) {
      const { id, type, start, end, confidence, detector } = s;
      spans.push({ id: `${field}#${id}`, field, type, start, end, value: text.slice(start, end), confidence, detector, accepted: true });
    }
  });
  return spans;
}

const MAIL = 'mail anna.berg@example.com or call +1 415 555 0132';
const CONTENT = {
  conversationId: 'telegram:direct:+14155550132',
  xconversationId: 'a:b:+14155550132',
  conversation: [
    { role: 'user', message: MAIL, turnNumber: '4155550132' },
    { role: 'assistant', message: 'noted', type: MAIL },
  ],
  '': { nested: MAIL, '': MAIL },
  'dotted.key': { type: MAIL, label: MAIL, 'a.label': MAIL, labelled: MAIL },
  context: [[MAIL, ''], { decision: MAIL, correctDecision: MAIL, fact: 'key 10.0.0.7' }],
  empty: '',
  n: 4,
  nothing: null,
};

describe('scanContent', () => {
  it('finds the spans of the plain walk, field paths and skipped fields included', () => {
    for (const opts of [{}, { names: true }] as DetectOptions[]) {
      const expected = plainScan(CONTENT, opts);
      expect(expected.length).toBeGreaterThan(8);
      expect(scanContent(CONTENT, detectPii, opts)).toEqual(expected);
      expect(scanContent(CONTENT, detectPii, opts, new PiiScanCache())).toEqual(expected);
      expect(scanContent(CONTENT, detectPii, opts, new Map())).toEqual(expected);
    }
    expect(scanContent(MAIL, detectPii, {})).toEqual(plainScan(MAIL, {}));
    const fields = new Set(scanContent(CONTENT, detectPii, {}).map((s) => s.field));
    expect(fields).toContain('conversationId');
    expect(fields).toContain('nested'); // forEachText drops an empty key from the path
    expect(fields).toContain('dotted.key.labelled');
    expect(fields).not.toContain('dotted.key.a.label');
  });
});

describe('PiiScanCache', () => {
  it('keeps a text met in the last two generations and forgets older ones', () => {
    const calls: string[] = [];
    const counting = (text: string, opts?: DetectOptions): PiiSpan[] => {
      calls.push(text);
      return detectPii(text, opts);
    };
    const cache = new PiiScanCache(3);
    const scan = (text: string) => scanContent({ text }, counting, {}, cache);
    const first = scan(MAIL);
    for (const t of ['a', 'b']) scan(t); // the generation holding MAIL is full: it becomes the previous one
    expect(scan(MAIL)).toEqual(first); // found in the previous generation, carried into the current one
    expect(calls.filter((t) => t === MAIL)).toHaveLength(1);
    for (const t of ['c', 'd', 'e', 'f', 'g', 'h']) scan(t); // two more generations: MAIL is gone
    scan(MAIL);
    expect(calls.filter((t) => t === MAIL)).toHaveLength(2);
    expect(cache.size).toBeLessThan(2 * 3);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
