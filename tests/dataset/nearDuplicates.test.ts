// Issue 12, item 4: distinct facts from consecutive turns that share their context survive dedupe;
// copies of one lesson (other casing, punctuation, a typo, another secret) merge.
import { describe, expect, it } from 'vitest';
import { tempWorkspace } from '../helpers/workspace';
import { NEAR_DUP_PAIRS, pairScores, runNearDupPairs } from './nearDupPairs';

describe('near-duplicate pairs with known answers', () => {
  it('keeps every distinct fact apart and merges true copies', async () => {
    expect(NEAR_DUP_PAIRS.length).toBeGreaterThanOrEqual(50);
    const outcomes = await runNearDupPairs(tempWorkspace('reflection-neardup-'));
    const wrong = outcomes
      .filter((o) => o.merged !== o.pair.same)
      .map((o) => `${o.pair.same ? 'missed' : 'merged'}: ${o.pair.a.user} | ${o.pair.b.user}`);
    const s = pairScores(outcomes);
    // distinct facts are never merged: a lost fact is worse than a kept copy
    expect(s.fp, wrong.join('\n')).toBe(0);
    expect(s.recall, wrong.join('\n')).toBeGreaterThanOrEqual(0.85);
  });
});
