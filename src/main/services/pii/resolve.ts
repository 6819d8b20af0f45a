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
  const kept: PiiSpan[] = [];
  for (const s of ranked) {
    if (s.end <= s.start) continue;
    if (kept.some((k) => s.start < k.end && k.start < s.end)) continue;
    kept.push(s);
  }
  return kept.sort((a, b) => a.start - b.start || a.end - b.end);
}
