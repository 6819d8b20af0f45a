// PII and secret detection for English and Chinese text, and redaction with numbered placeholders.
import { detectEmails, detectPhones } from './detectors/contact';
import { detectPassports, detectQq, detectWechat } from './detectors/chinese';
import { detectNames } from './detectors/names';
import { detectIps, detectUrlCredentials } from './detectors/network';
import { detectCards, detectChineseIds, detectIbans, isValidChineseId } from './detectors/numbers';
import { DEFAULT_KEY_PATTERNS, detectSecrets } from './detectors/secrets';
import { detectionView, toOriginal, type DetectionView } from './normalize';
import { resolveOverlaps } from './resolve';
import type { DetectOptions, PiiSpan } from './types';

export * from './types';
export { createRedactor, redact, type Redactor, type RedactOptions } from './redact';
export { createRedactionScope, normalizedValue, type RedactionScope } from './scope';
export { detectionView, foldValue } from './normalize';
export { resolveOverlaps, isValidChineseId, DEFAULT_KEY_PATTERNS };

/**
 * Finds PII and secrets. Returns non-overlapping spans sorted by start; when detectors disagree the
 * more confident, then more specific match wins (a Chinese ID beats a card reading of the same digits).
 * Detectors read a folded view of the text (NFKC, invisible characters removed); offsets and values
 * are always the original text's, and cover any invisible characters hidden inside a value.
 *
 * Each detector skips a text that fails its prefilter, a necessary condition of its patterns documented beside
 * them (a digit count, a literal, a run length): most texts hold no PII and fail them all. `prefilter` false
 * runs every pattern on every text; it exists so tests can show the spans are the same either way.
 */
export function detectPii(text: string, opts: DetectOptions = {}, prefilter = true): PiiSpan[] {
  if (!text) return [];
  const view = detectionView(text);
  const input = view?.text ?? text;
  const candidates: PiiSpan[] = [
    ...detectSecrets(input, opts.redactPatterns, prefilter),
    ...detectUrlCredentials(input),
    ...detectEmails(input),
    ...detectChineseIds(input, prefilter),
    ...detectCards(input, prefilter),
    ...detectIbans(input, prefilter),
    ...detectIps(input, prefilter),
    ...detectPhones(input),
  ];
  // The Chinese account and document detectors all need a cue word; most texts have none.
  if (CHINESE_ID_CUES.test(input)) candidates.push(...detectQq(input), ...detectWechat(input), ...detectPassports(input));
  if (opts.names !== 'none') candidates.push(...detectNames(input, opts.names === true, prefilter));
  if (!candidates.length) return candidates;
  const min = opts.minConfidence ?? 0;
  const spans = resolveOverlaps(candidates).filter((s) => s.confidence >= min);
  return view ? spans.map((s) => mapToOriginal(text, view, s)) : spans;
}

const CHINESE_ID_CUES =
  /qq|扣扣|企鹅|Q号|微信|威信|薇信|加微|wechat|weixin|wx|vx|v信|加v|微x|护照|passport|旅行证件|travel\s+document|通行证|证件号/i;

function mapToOriginal(text: string, view: DetectionView, s: PiiSpan): PiiSpan {
  const [start, end] = toOriginal(view, s.start, s.end);
  return { ...s, id: `${s.type}:${start}:${end}`, start, end, value: text.slice(start, end) };
}
