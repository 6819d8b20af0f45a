import { describe, expect, it } from 'vitest';
import { agreementPerLabel, cohensKappa } from '../../src/core/curation/agreement';

const pairs = (spec: [string, string, number][]) => spec.flatMap(([a, b, n]) => Array.from({ length: n }, () => [a, b] as const));

describe("Cohen's kappa", () => {
  it('matches the textbook 2x2 example (Wikipedia: 20/5/10/15 gives 0.4)', () => {
    const r = cohensKappa(
      pairs([
        ['yes', 'yes', 20],
        ['yes', 'no', 5],
        ['no', 'yes', 10],
        ['no', 'no', 15],
      ]),
    );
    expect(r.n).toBe(50);
    expect(r.raw).toBeCloseTo(0.7, 10);
    expect(r.kappa).toBeCloseTo(0.4, 10);
  });

  it('matches a three-label example computed by hand', () => {
    // po = (10+8+3)/30 = 0.7; row totals a: 14, 11, 5; column totals b: 13, 12, 5
    // pe = (14*13 + 11*12 + 5*5) / 900 = 339/900; kappa = (630/900 - 339/900) / (561/900) = 291/561
    const r = cohensKappa(
      pairs([
        ['approved', 'approved', 10],
        ['approved', 'rejected', 3],
        ['approved', 'needs_review', 1],
        ['rejected', 'approved', 2],
        ['rejected', 'rejected', 8],
        ['rejected', 'needs_review', 1],
        ['needs_review', 'approved', 1],
        ['needs_review', 'rejected', 1],
        ['needs_review', 'needs_review', 3],
      ]),
    );
    expect(r.n).toBe(30);
    expect(r.raw).toBeCloseTo(0.7, 10);
    expect(r.kappa).toBeCloseTo(291 / 561, 10);
  });

  it('is 1 for perfect agreement, negative for systematic disagreement, undefined when chance agreement is total', () => {
    expect(
      cohensKappa(
        pairs([
          ['a', 'a', 3],
          ['b', 'b', 2],
        ]),
      ).kappa,
    ).toBeCloseTo(1, 10);
    expect(
      cohensKappa(
        pairs([
          ['a', 'b', 5],
          ['b', 'a', 5],
        ]),
      ).kappa,
    ).toBeCloseTo(-1, 10);
    const same = cohensKappa(pairs([['a', 'a', 4]]));
    expect(same.raw).toBe(1);
    expect(same.kappa).toBeNull();
    expect(cohensKappa([])).toEqual({ n: 0, raw: null, kappa: null });
  });

  it('gives each label its own one-against-the-rest figure', () => {
    const per = agreementPerLabel(
      pairs([
        ['yes', 'yes', 20],
        ['yes', 'no', 5],
        ['no', 'yes', 10],
        ['no', 'no', 15],
      ]),
    );
    expect(Object.keys(per)).toEqual(['no', 'yes']);
    // with two labels, each one-vs-rest table is the whole table: same kappa
    expect(per.yes?.kappa).toBeCloseTo(0.4, 10);
    expect(per.no?.kappa).toBeCloseTo(0.4, 10);
  });
});
