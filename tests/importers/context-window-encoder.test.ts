// The encoder writes a window's JSON by hand: it must be the text JSON.stringify gives for the same items.
import { describe, expect, it } from 'vitest';
import { ContextWindowEncoder } from '../../src/core/importers/contextWindows';

describe('ContextWindowEncoder.encode', () => {
  it('writes what JSON.stringify writes for copies and references', () => {
    const enc = new ContextWindowEncoder();
    enc.written('t1', { sessionId: 's', turnNumber: 1, user: 'hi "there"\n', agent: '记录 \u2028 done' });
    enc.written('t2', { sessionId: 's', turnNumber: 2, user: 'next', agent: 'ok' });
    enc.written('o1', { sessionId: 'other', turnNumber: 9, user: 'elsewhere', agent: 'x' });
    const context = [
      { role: 'user' as const, message: 'hi "there"\n', timestamp: 1_772_323_200_123 },
      { role: 'agent' as const, message: '记录 \u2028 done', timestamp: 0 },
      { role: 'user' as const, message: 'not written', timestamp: 5 },
      { role: 'user' as const, message: 'elsewhere', timestamp: 6 },
      { role: 'user' as const, message: 'next', timestamp: 7 },
    ];
    const { items, refersTo } = enc.encode('t2', context);
    expect(items).toBe(
      JSON.stringify([
        ['user', 1_772_323_200_123, null, 1],
        ['agent', 0, null, 1],
        ['user', 5, 'not written'],
        ['user', 6, 'elsewhere'],
        ['user', 7, null, 0],
      ]),
    );
    expect(refersTo).toEqual(['t1']);
    expect(enc.encode('t2', []).items).toBe('[]');
    expect(enc.encode('t2', context, true).items).toBe(
      JSON.stringify([
        ['user', 1_772_323_200_123, 'hi "there"\n'],
        ['agent', 0, '记录 \u2028 done'],
        ['user', 5, 'not written'],
        ['user', 6, 'elsewhere'],
        ['user', 7, null, 0],
      ]),
    );
  });
});
