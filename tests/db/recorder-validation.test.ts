// The recorder's hand-written input checks (src/core/recorder/wellFormed.ts) against its zod schemas:
// over many variants of each input, a value the quick check accepts is one zod accepts, with the same
// parsed fields; everything else is left to zod, whose messages the callers see.
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { contextItemInput, decisionInput, sessionInput, turnInput, writeInput } from '../../src/core/recorder/schemas';
import {
  wellFormedContextItem,
  wellFormedDecision,
  wellFormedSession,
  wellFormedTurn,
  wellFormedWrite,
} from '../../src/core/recorder/wellFormed';

const POOL: unknown[] = [
  undefined,
  null,
  '',
  'x',
  'NO_WRITE',
  'UPDATE_USER',
  'USER.md',
  'written',
  'plugin',
  'external',
  'user',
  'agent',
  0,
  -0,
  1,
  -1,
  1.5,
  NaN,
  Infinity,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  true,
  [],
  ['x'],
  {},
  { model: 'm' },
  new String('x'),
  Object.create(null),
];

type Loose = Record<string, unknown>;

/** Every variant of `base` with one field (top level or one object deep) replaced by a pool value or removed. */
function variants(base: Loose): unknown[] {
  const out: unknown[] = [base, { ...base, extra: 1 }, null, [], 'x', 1];
  for (const key of Object.keys(base)) {
    const { [key]: _dropped, ...without } = base;
    out.push(without);
    for (const v of POOL) out.push({ ...base, [key]: v });
    const inner = base[key];
    if (inner && typeof inner === 'object') {
      for (const k of Object.keys(inner)) {
        const { [k]: _gone, ...innerWithout } = inner as Loose;
        out.push({ ...base, [key]: innerWithout });
        for (const v of POOL) out.push({ ...base, [key]: { ...(inner as Loose), [k]: v } });
      }
    }
  }
  return out;
}

function holdsTo(schema: z.ZodType, check: (v: unknown) => unknown, bases: Loose[]): { accepted: number; total: number } {
  let accepted = 0;
  let total = 0;
  for (const base of bases) {
    for (const v of variants(base)) {
      total++;
      const quick = check(v);
      const parsed = schema.safeParse(v);
      if (quick === undefined) continue;
      accepted++;
      expect(parsed.success, `zod refuses what the quick check accepted: ${JSON.stringify(v)}`).toBe(true);
      expect(quick).toMatchObject(parsed.data as object);
    }
  }
  return { accepted, total };
}

const llm = { model: 'gpt', latencyMs: 10, promptTokens: 5, completionTokens: 2, rawResponse: '{}' };

describe('recorder input checks', () => {
  it('accept the common shapes as they are, and only what zod accepts', () => {
    const session = { id: 's', channelId: 'c', conversationTarget: 't', accountId: 'a', createdAt: 1, lastActivityAt: 2 };
    const turn = {
      id: 't1',
      sessionId: 's',
      turnNumber: 0,
      userMessage: { id: 'u', content: 'hi', from: 'me' },
      agentReply: { id: 'a', content: 'hello' },
      createdAt: 3,
    };
    const decision = {
      id: 'd',
      turnId: 't1',
      sessionId: 's',
      decision: 'UPDATE_USER',
      reason: 'r',
      candidateFact: 'f',
      llmCall: llm,
      source: 'demo',
      createdAt: 4,
    };
    const write = {
      decisionId: 'd',
      turnId: 't1',
      sessionId: 's',
      targetFile: 'USER.md',
      candidateFact: 'f',
      before: 'a\n',
      after: 'a\nb\n',
      status: 'written',
      reason: 'ok',
      llmCall: { model: 'm', latencyMs: 1, agentSteps: 2 },
      createdAt: 5,
    };
    const cases: Array<[z.ZodType, (v: unknown) => unknown, Loose[]]> = [
      [sessionInput, wellFormedSession, [session, { id: 's', channelId: 'c', createdAt: 0, lastActivityAt: 0 }]],
      [turnInput, wellFormedTurn, [turn, { sessionId: 's', userMessage: { content: '' }, agentReply: { content: '' }, createdAt: 0 }]],
      [contextItemInput, wellFormedContextItem, [{ role: 'user', message: 'm', timestamp: 1 }]],
      [
        decisionInput,
        wellFormedDecision,
        [decision, { turnId: 't', sessionId: 's', decision: 'NO_WRITE', reason: '', llmCall: { model: 'm' }, createdAt: 0 }],
      ],
      [
        writeInput,
        wellFormedWrite,
        [
          write,
          { targetFile: 'SOUL.md', status: 'refused', source: 'external', before: null, createdAt: 0 },
          { ...write, source: 'retry', decisionId: undefined },
        ],
      ],
    ];
    for (const [schema, check, bases] of cases) {
      for (const base of bases) expect(check(base), JSON.stringify(base)).toBeDefined();
      const { accepted, total } = holdsTo(schema, check, bases);
      // The quick path is the rule for well-formed input, not an exception: most one-field changes that zod accepts pass it too.
      expect(accepted).toBeGreaterThan(bases.length * 5);
      expect(accepted).toBeLessThan(total);
    }
  });

  it('leave metadata to zod, and give a plugin write without source its default', () => {
    expect(wellFormedSession({ id: 's', channelId: 'c', createdAt: 1, lastActivityAt: 1, metadata: { a: 1 } })).toBeUndefined();
    expect(
      wellFormedTurn({ sessionId: 's', userMessage: { content: 'x', metadata: {} }, agentReply: { content: 'y' }, createdAt: 1 }),
    ).toBeUndefined();
    const input = { decisionId: 'd', targetFile: 'USER.md', status: 'failed', createdAt: 1 };
    const out = wellFormedWrite(input);
    expect(out?.source).toBe('plugin');
    expect(input).not.toHaveProperty('source');
    // The refinement: a plugin write names its decision.
    expect(wellFormedWrite({ targetFile: 'USER.md', status: 'failed', createdAt: 1 })).toBeUndefined();
    expect(writeInput.safeParse({ targetFile: 'USER.md', status: 'failed', createdAt: 1 }).success).toBe(false);
  });
});
