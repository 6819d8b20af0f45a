import { describe, expect, it } from 'vitest';
import { createRedactor, detectPii, redact, resolveOverlaps, type PiiSpan } from '../../src/core/pii/index';

describe('redact', () => {
  it('replaces spans with typed placeholders numbered per type, same value same placeholder', () => {
    const text = 'Mail bob@example.com or BOB@example.com, call 13812345678 / +86 138 1234 5678, or alice@example.org';
    const result = redact(text, detectPii(text));
    expect(result.text).toBe('Mail [EMAIL_1] or [EMAIL_1], call [PHONE_1] / [PHONE_1], or [EMAIL_2]');
    expect(result.placeholders).toEqual({ '[EMAIL_1]': 'bob@example.com', '[PHONE_1]': '13812345678', '[EMAIL_2]': 'alice@example.org' });
    expect(result.applied).toHaveLength(5);
  });

  it('leaves rejected spans as they are and numbers only the applied ones', () => {
    const text = 'a@example.com then b@example.com';
    const spans = detectPii(text);
    const result = redact(text, spans, { rejectedIds: [spans[0]!.id] });
    expect(result.text).toBe('a@example.com then [EMAIL_1]');
    expect(result.placeholders).toEqual({ '[EMAIL_1]': 'b@example.com' });
    expect(result.applied.map((s) => s.id)).toEqual([spans[1]!.id]);
  });

  it('ignores spans that do not match the text (stale offsets) instead of corrupting it', () => {
    const text = 'call 13812345678';
    const stale: PiiSpan = { id: 'PHONE:0:4', type: 'PHONE', start: 0, end: 4, value: 'nope', confidence: 1, detector: 'test' };
    expect(redact(text, [stale]).text).toBe(text);
  });

  it('no detected value survives redaction', () => {
    const text = '身份证 11010519491231002X，卡号 6222021001123456789，password=hunter22，IP 10.0.0.8，key AKIAIOSFODNN7EXAMPLE';
    const spans = detectPii(text);
    const out = redact(text, spans).text;
    expect(spans.length).toBe(5);
    for (const s of spans) expect(out).not.toContain(s.value);
    expect(out).toBe('身份证 [CN_ID_1]，卡号 [BANK_CARD_1]，password=[PASSWORD_1]，IP [IP_ADDRESS_1]，key [API_KEY_1]');
  });
});

describe('createRedactor', () => {
  it('shares one numbering across the fields of a sample', () => {
    const r = createRedactor();
    const instruction = 'Remember: my email is bob@example.com';
    const output = 'Saved bob@example.com; backup carol@example.com';
    const a = r.redact(instruction, detectPii(instruction));
    const b = r.redact(output, detectPii(output));
    expect(a.text).toBe('Remember: my email is [EMAIL_1]');
    expect(b.text).toBe('Saved [EMAIL_1]; backup [EMAIL_2]');
    expect(b.placeholders).toEqual({ '[EMAIL_1]': 'bob@example.com', '[EMAIL_2]': 'carol@example.com' });
    expect(r.placeholders).toEqual({ '[EMAIL_1]': 'bob@example.com', '[EMAIL_2]': 'carol@example.com' });
  });

  it('starts from 1 again for a new sample', () => {
    createRedactor().redact('x@example.com', detectPii('x@example.com'));
    expect(createRedactor().redact('y@example.com', detectPii('y@example.com')).text).toBe('[EMAIL_1]');
  });
});

describe('resolveOverlaps', () => {
  const span = (type: PiiSpan['type'], start: number, end: number, confidence: number): PiiSpan => ({
    id: `${type}:${start}:${end}`,
    type,
    start,
    end,
    value: 'x'.repeat(end - start),
    confidence,
    detector: 'test',
  });

  it('keeps the more confident span, then the more specific type, then the longer one', () => {
    expect(resolveOverlaps([span('PHONE', 0, 11, 0.75), span('CN_ID', 0, 18, 0.95)]).map((s) => s.type)).toEqual(['CN_ID']);
    expect(resolveOverlaps([span('BANK_CARD', 0, 18, 0.9), span('CN_ID', 0, 18, 0.9)]).map((s) => s.type)).toEqual(['CN_ID']);
    expect(resolveOverlaps([span('IP_ADDRESS', 0, 8, 0.8), span('IP_ADDRESS', 0, 20, 0.8)]).map((s) => s.end)).toEqual([20]);
  });

  it('is deterministic whatever the input order', () => {
    const spans = [
      span('EMAIL', 5, 20, 0.9),
      span('URL_CREDENTIALS', 0, 25, 0.95),
      span('PHONE', 30, 41, 0.75),
      span('PERSON', 28, 35, 0.3),
    ];
    const a = resolveOverlaps(spans);
    const b = resolveOverlaps([...spans].reverse());
    expect(a).toEqual(b);
    expect(a.map((s) => s.type)).toEqual(['URL_CREDENTIALS', 'PHONE']);
  });
});
