// Precision and recall of comparePair on the labelled pairs (shared by the test and the bench).
import { comparePair } from '../../src/core/health/conflicts';
import { CONFLICT_PAIRS, type PairLabel } from './fixtures/conflictPairs';

export interface Score {
  label: Exclude<PairLabel, 'none'>;
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
}

export function evaluateConflictPairs(): { pairs: number; en: number; zh: number; scores: Score[]; misses: string[] } {
  const counts = { contradiction: { tp: 0, fp: 0, fn: 0 }, duplicate: { tp: 0, fp: 0, fn: 0 } };
  const misses: string[] = [];
  let zh = 0;
  for (const [a, b, label] of CONFLICT_PAIRS) {
    if (/\p{Script=Han}/u.test(a + b)) zh++;
    const got = comparePair(a, b)?.kind ?? 'none';
    if (got !== label) misses.push(`${label} → ${got}: ${a} | ${b}`);
    for (const k of ['contradiction', 'duplicate'] as const) {
      if (got === k && label === k) counts[k].tp++;
      else if (got === k) counts[k].fp++;
      else if (label === k) counts[k].fn++;
    }
  }
  const scores = (['contradiction', 'duplicate'] as const).map((label) => {
    const c = counts[label];
    return { label, ...c, precision: c.tp / Math.max(1, c.tp + c.fp), recall: c.tp / Math.max(1, c.tp + c.fn) };
  });
  return { pairs: CONFLICT_PAIRS.length, en: CONFLICT_PAIRS.length - zh, zh, scores, misses };
}
