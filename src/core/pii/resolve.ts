import type { PiiSpan, PiiType } from './types';

/**
 * How specific a match is when two detectors claim overlapping text, and which type names a value that
 * several fields read differently (a credit card over a bank card, a phone over a WeChat or QQ number).
 */
export const SPECIFICITY: Record<PiiType, number> = {
  PRIVATE_KEY: 100,
  URL_CREDENTIALS: 90,
  CN_ID: 85,
  API_KEY: 80,
  EMAIL: 70,
  CREDIT_CARD: 60,
  BANK_CARD: 58,
  IBAN: 57,
  PASSWORD: 55,
  CN_PASSPORT: 54,
  WECHAT: 45,
  QQ: 35,
  IP_ADDRESS: 50,
  PHONE: 40,
  PERSON: 10,
};

function outranks(a: PiiSpan, b: PiiSpan): number {
  return (
    b.confidence - a.confidence ||
    SPECIFICITY[b.type] - SPECIFICITY[a.type] ||
    b.end - b.start - (a.end - a.start) ||
    a.start - b.start ||
    (a.detector < b.detector ? -1 : a.detector > b.detector ? 1 : 0)
  );
}

/**
 * Keeps a non-overlapping set: the most confident span wins, then the most specific type
 * (so a Chinese ID beats a card read of the same digits), then the longest. Deterministic.
 */
export function resolveOverlaps(spans: PiiSpan[]): PiiSpan[] {
  const ranked = [...spans].sort(outranks);
  // Kept spans never overlap, so sorted by start their ends are sorted too: a new span only has to be checked
  // against its two neighbours (binary search), which keeps long texts with many findings near-linear.
  const kept: PiiSpan[] = [];
  for (const s of ranked) {
    if (s.end <= s.start) continue;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (kept[mid]!.start < s.start)
        lo = mid + 1; // lo <= mid < hi <= kept.length
      else hi = mid;
    }
    if ((kept[lo - 1]?.end ?? -Infinity) > s.start) continue;
    if ((kept[lo]?.start ?? Infinity) < s.end) continue;
    kept.splice(lo, 0, s);
  }
  return kept.sort((a, b) => a.start - b.start || a.end - b.end);
}
