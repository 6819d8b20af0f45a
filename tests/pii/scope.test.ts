import { describe, expect, it } from 'vitest';
import { createRedactionScope, detectPii, normalizedValue } from '../../src/core/pii/index';
import { redactContent, scanContent } from '../../src/core/dataset/privacy';

const ZWSP = '\u200b';

describe('redaction scope: one value, one placeholder', () => {
  it('gives a card read as BANK_CARD in Chinese and CREDIT_CARD in English one placeholder and one type', () => {
    const zh = '我的银行卡是 4532 0151 1283 0366，帮我记一下';
    const en = "The user's card number is 4532015112830366.";
    expect(detectPii(zh).map((s) => s.type)).toEqual(['BANK_CARD']);
    expect(detectPii(en).map((s) => s.type)).toEqual(['CREDIT_CARD']);
    const scope = createRedactionScope();
    scope.observe([...detectPii(zh), ...detectPii(en)]);
    expect(scope.redact(zh, detectPii(zh)).text).toBe('我的银行卡是 [CREDIT_CARD_1]，帮我记一下');
    expect(scope.redact(en, detectPii(en)).text).toBe("The user's card number is [CREDIT_CARD_1].");
    expect(scope.placeholders).toEqual({ '[CREDIT_CARD_1]': '4532 0151 1283 0366' });
  });

  it('keeps the first placeholder once handed out, even if a more specific reading comes later', () => {
    const scope = createRedactionScope();
    const a = '银行卡 4532015112830366';
    expect(scope.redact(a, detectPii(a)).text).toBe('银行卡 [BANK_CARD_1]');
    const b = 'card 4532-0151-1283-0366';
    expect(scope.redact(b, detectPii(b)).text).toBe('card [BANK_CARD_1]');
  });

  it('normalises spellings: full-width, separators, +86, case, invisible characters', () => {
    expect(normalizedValue('PHONE', '+86 138-1234-5678')).toBe(normalizedValue('PHONE', '１３８１２３４５６７８'));
    expect(normalizedValue('EMAIL', `Bob${ZWSP}@Example.com`)).toBe('bob@example.com');
    expect(normalizedValue('CN_ID', '110101 18800307 001x')).toBe('11010118800307001x');
    expect(normalizedValue('CREDIT_CARD', '4532 0151 1283 0366')).not.toBe(normalizedValue('CREDIT_CARD', '4532 0151 1283 0367'));
  });

  it('sweeps other spellings of a held value, including inside a text the detector did not flag', () => {
    const scope = createRedactionScope();
    const first = '联系邮箱 bob@example.com，手机 13812345678';
    expect(scope.redact(first, detectPii(first)).text).toBe('联系邮箱 [EMAIL_1]，手机 [PHONE_1]');
    // No spans passed: only the sweep can find these.
    expect(scope.redact(`mail BOB@EXAMPLE.COM or call +86 138 1234 56${ZWSP}78`, []).text).toBe('mail [EMAIL_1] or call [PHONE_1]');
    expect(scope.redact('order 138123456789 is not the phone', []).text).toBe('order 138123456789 is not the phone');
  });

  it('never sweeps a value the curator rejected in that place', () => {
    const scope = createRedactionScope();
    scope.redact('a@example.com', detectPii('a@example.com'));
    const text = 'again a@example.com';
    const spans = detectPii(text);
    expect(scope.redact(text, spans, { rejectedIds: [spans[0]!.id] }).text).toBe(text);
  });
});

describe('dataset redactContent uses the scope', () => {
  it('gives the conversation, the fact and the file content one placeholder per value', () => {
    const content = {
      conversation: [{ role: 'user', message: `我的信用卡号是 4532 0151 1283 ${ZWSP}0366，QQ是 2837465019` }],
      candidateFact: 'User card 4532015112830366; QQ 2837465019',
      fileContent: '- card: 4532-0151-1283-0366',
    };
    const spans = scanContent(content, detectPii, {});
    const { redacted, placeholders } = redactContent(content, spans);
    expect(redacted).toEqual({
      conversation: [{ role: 'user', message: '我的信用卡号是 [CREDIT_CARD_1]，QQ是 [QQ_1]' }],
      candidateFact: 'User card [CREDIT_CARD_1]; QQ [QQ_1]',
      fileContent: '- card: [CREDIT_CARD_1]',
    });
    expect(Object.keys(placeholders).sort()).toEqual(['[CREDIT_CARD_1]', '[QQ_1]']);
    expect(JSON.stringify(redacted)).not.toMatch(/0366|2837465019/);
  });

  it('shares numbering across samples when given one scope (a session)', () => {
    const scope = createRedactionScope();
    const a = { candidateFact: 'mail a@example.com' };
    const b = { candidateFact: 'mail b@example.com and a@example.com' };
    expect(redactContent(a, scanContent(a, detectPii, {}), scope).redacted).toEqual({ candidateFact: 'mail [EMAIL_1]' });
    expect(redactContent(b, scanContent(b, detectPii, {}), scope).redacted).toEqual({ candidateFact: 'mail [EMAIL_2] and [EMAIL_1]' });
  });
});
