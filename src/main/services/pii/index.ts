// PII and secret detection for English and Chinese text, and redaction with numbered placeholders.
import { detectEmails, detectPhones } from './detectors/contact';
import { detectNames } from './detectors/names';
import { detectIps, detectUrlCredentials } from './detectors/network';
import { detectCards, detectChineseIds, detectIbans, isValidChineseId } from './detectors/numbers';
import { DEFAULT_KEY_PATTERNS, detectSecrets } from './detectors/secrets';
import { resolveOverlaps } from './resolve';
import type { DetectOptions, PiiSpan } from './types';

export * from './types';
export { createRedactor, redact, type Redactor, type RedactOptions } from './redact';
export { resolveOverlaps, isValidChineseId, DEFAULT_KEY_PATTERNS };

/**
 * Finds PII and secrets. Returns non-overlapping spans sorted by start; when detectors disagree the
 * more confident, then more specific match wins (a Chinese ID beats a card reading of the same digits).
 */
export function detectPii(text: string, opts: DetectOptions = {}): PiiSpan[] {
  if (!text) return [];
  const candidates: PiiSpan[] = [
    ...detectSecrets(text, opts.redactPatterns),
    ...detectUrlCredentials(text),
    ...detectEmails(text),
    ...detectChineseIds(text),
    ...detectCards(text),
    ...detectIbans(text),
    ...detectIps(text),
    ...detectPhones(text),
  ];
  if (opts.names) candidates.push(...detectNames(text));
  const min = opts.minConfidence ?? 0;
  return resolveOverlaps(candidates).filter((s) => s.confidence >= min);
}
