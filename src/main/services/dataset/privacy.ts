// Privacy at collection: PII spans over every text field of a sample, and the redacted copy of its
// content with typed, numbered placeholders ([EMAIL_1]) that stay the same across the sample's fields.
// pii's own redact() numbers placeholders per text; a sample has many texts, so numbering is done here.
import { detectPii } from '../pii';
import type { DetectOptions, PiiSpan, PiiType } from '../pii/types';

export interface StoredPiiSpan {
  /** Unique within the sample: `${field}#${detector span id}`. */
  id: string;
  /** Path of the text field inside the sample content, e.g. "conversation.1.message". */
  field: string;
  type: PiiType;
  start: number;
  end: number;
  value: string;
  confidence: number;
  detector: string;
  /** true: redacted on export (the default); false: a curator said it is not PII. */
  accepted: boolean;
}

export type Detect = (text: string, opts?: DetectOptions) => PiiSpan[];

/** The detector collection uses (pii area's detectPii); a function so a build can swap it. */
export async function loadPiiDetector(): Promise<Detect | null> {
  return detectPii;
}

export function forEachText(value: unknown, fn: (field: string, text: string) => void, prefix = ''): void {
  if (typeof value === 'string') fn(prefix, value);
  else if (Array.isArray(value)) value.forEach((v, i) => forEachText(v, fn, prefix ? `${prefix}.${i}` : String(i)));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) forEachText(v, fn, prefix ? `${prefix}.${k}` : k);
  }
}

function mapTexts(value: unknown, fn: (field: string, text: string) => string, prefix = ''): unknown {
  if (typeof value === 'string') return fn(prefix, value);
  if (Array.isArray(value)) return value.map((v, i) => mapTexts(v, fn, prefix ? `${prefix}.${i}` : String(i)));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = mapTexts(v, fn, prefix ? `${prefix}.${k}` : k);
    return out;
  }
  return value;
}

/** Fields that hold enumerations or ids, never free text. */
const SKIP_FIELDS = /(^|\.)(type|correctDecision|incorrectDecision|decision|label|targetFile|role|turnNumber)$/;

/** Detects PII in every text field; a cache lets samples of one decision share the work. */
export function scanContent(
  content: unknown,
  detect: Detect,
  opts: DetectOptions,
  cache?: Map<string, PiiSpan[]>,
): StoredPiiSpan[] {
  const spans: StoredPiiSpan[] = [];
  forEachText(content, (field, text) => {
    if (!text || SKIP_FIELDS.test(field)) return;
    // a session key's separators hide a phone number from the detector; spaces keep the offsets
    const probe = field.endsWith('conversationId') ? text.replace(/[:/]/g, ' ') : text;
    let found = cache?.get(probe);
    if (!found) {
      found = detect(probe, opts);
      cache?.set(probe, found);
    }
    for (const s of found) {
      spans.push({
        id: `${field}#${s.id}`,
        field,
        type: s.type,
        start: s.start,
        end: s.end,
        value: text.slice(s.start, s.end),
        confidence: s.confidence,
        detector: s.detector,
        accepted: true,
      });
    }
  });
  return spans;
}

/** The content with every accepted span replaced by its placeholder; one value keeps one placeholder. */
export function redactContent(content: unknown, spans: StoredPiiSpan[]): { redacted: unknown; placeholders: Record<string, string> } {
  const byField = new Map<string, StoredPiiSpan[]>();
  for (const s of spans) {
    if (!s.accepted) continue;
    const list = byField.get(s.field) ?? [];
    list.push(s);
    byField.set(s.field, list);
  }
  const numbering = new Map<string, string>(); // `${type}\u0000${value}` -> placeholder
  const counters = new Map<string, number>();
  const placeholders: Record<string, string> = {};
  const placeholderFor = (s: StoredPiiSpan) => {
    const key = `${s.type}\u0000${s.value}`;
    let p = numbering.get(key);
    if (!p) {
      const n = (counters.get(s.type) ?? 0) + 1;
      counters.set(s.type, n);
      p = `[${s.type}_${n}]`;
      numbering.set(key, p);
      placeholders[p] = s.value;
    }
    return p;
  };
  // Number placeholders in order of first appearance, then replace.
  forEachText(content, (field) => {
    const list = byField.get(field);
    if (!list) return;
    list.sort((a, b) => a.start - b.start || b.end - a.end);
    for (const s of list) placeholderFor(s);
  });
  // A value detected once is also hidden where the detector did not flag it again (another field, a skipped field).
  const leftovers = [...numbering.entries()]
    .map(([key, p]) => [key.slice(key.indexOf('\u0000') + 1), p] as const)
    .filter(([value]) => value.length >= 4)
    .sort((a, b) => b[0].length - a[0].length);
  const redacted = mapTexts(content, (field, text) => {
    const list = byField.get(field);
    let out = text;
    if (list) {
      out = '';
      let at = 0;
      for (const s of list) {
        if (s.start < at || s.end > text.length || text.slice(s.start, s.end) !== s.value) continue;
        out += text.slice(at, s.start) + placeholderFor(s);
        at = s.end;
      }
      out += text.slice(at);
    }
    for (const [value, p] of leftovers) if (out.includes(value)) out = out.split(value).join(p);
    return out;
  });
  return { redacted, placeholders };
}
