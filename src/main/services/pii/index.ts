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
  const input = foldFullWidth(text);
  const candidates: PiiSpan[] = [
    ...detectSecrets(input, opts.redactPatterns),
    ...detectUrlCredentials(input),
    ...detectEmails(input),
    ...detectChineseIds(input),
    ...detectCards(input),
    ...detectIbans(input),
    ...detectIps(input),
    ...detectPhones(input),
  ];
  if (opts.names) candidates.push(...detectNames(input));
  const min = opts.minConfidence ?? 0;
  const spans = resolveOverlaps(candidates).filter((s) => s.confidence >= min);
  // Offsets are shared by both strings; values must be the original characters.
  if (input !== text) for (const s of spans) s.value = text.slice(s.start, s.end);
  return spans;
}

/**
 * Chinese input methods type full-width digits and punctuation ("１３８１２３４５６７８", "＠"). Each folds to
 * its ASCII twin one code unit for one, so detector offsets stay valid in the original text.
 */
function foldFullWidth(text: string): string {
  if (!/[\uFF01-\uFF5E\u3000]/.test(text)) return text;
  return text.replace(/[\uFF01-\uFF5E\u3000]/g, (ch) => (ch === '\u3000' ? ' ' : String.fromCharCode(ch.charCodeAt(0) - 0xfee0)));
}
