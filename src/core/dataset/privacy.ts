// Privacy at collection: PII spans over every text field of a sample, and the redacted copy of its
// content with typed, numbered placeholders ([EMAIL_1]) that stay the same across the sample's fields.
import { createRedactionScope, detectPii, type RedactionScope } from '../pii';
import type { DetectOptions, PiiSpan, PiiType } from '../pii/types';
import { RecentCache } from './recentCache';

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

/**
 * Every string in a sample's content with the keys that lead to it (an array's index is its key). Callers
 * that need a field's dotted path build it (fieldPath) only when they use it: most fields need none.
 */
export function walkTexts(value: unknown, fn: (keys: readonly string[], text: string) => void, keys: string[] = []): void {
  if (typeof value === 'string') fn(keys, value);
  else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      keys.push(String(i));
      walkTexts(value[i], fn, keys);
      keys.pop();
    }
  } else if (value && typeof value === 'object') {
    for (const k of Object.keys(value)) {
      keys.push(k);
      walkTexts((value as Record<string, unknown>)[k], fn, keys);
      keys.pop();
    }
  }
}

/** The key a string is stored under (its array index inside an array; '' for the content itself). */
export const lastKey = (keys: readonly string[]): string => (keys.length ? keys[keys.length - 1]! : '');

/** A field's dotted path, e.g. "conversation.1.message" (an empty key adds no dot, as stored paths have it). */
export function fieldPath(keys: readonly string[]): string {
  let path = '';
  for (const k of keys) path = path ? `${path}.${k}` : k;
  return path;
}

export function forEachText(value: unknown, fn: (field: string, text: string) => void): void {
  walkTexts(value, (keys, text) => fn(fieldPath(keys), text));
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

/** Fields that hold enumerations or ids, never free text (a Set: scanContent asks for every text of every sample). */
const SKIP_KEYS = new Set(['type', 'correctDecision', 'incorrectDecision', 'decision', 'label', 'targetFile', 'role', 'turnNumber']);

/** What scanContent needs of a cache: a Map or a PiiScanCache. */
export interface ScanCache {
  get(text: string): PiiSpan[] | undefined;
  set(text: string, spans: PiiSpan[]): unknown;
}

/**
 * Texts scanned lately and their spans, in two generations (RecentCache): the texts a run keeps meeting
 * (context windows overlap from turn to turn) survive where clearing everything at a limit would drop them.
 */
export class PiiScanCache extends RecentCache<string, PiiSpan[]> {
  constructor(generation = 2500) {
    super(generation);
  }
}

function scannedProbe(key: string, text: string): string | null {
  if (!text || SKIP_KEYS.has(key.slice(key.lastIndexOf('.') + 1))) return null;
  // a session key's separators hide a phone number from the detector; spaces keep the offsets
  return key.endsWith('conversationId') ? text.replace(/[:/]/g, ' ') : text;
}

/** Calls fn for each text field scanContent scans, with the text the detector reads (`probe`). */
function walkScanned(content: unknown, fn: (keys: readonly string[], text: string, probe: string) => void): void {
  walkTexts(content, (keys, text) => {
    const probe = scannedProbe(lastKey(keys), text);
    if (probe !== null) fn(keys, text, probe);
  });
}

/** Every text field scanContent scans, with the text the detector reads (`probe`) for it. */
export function forEachScannedText(content: unknown, fn: (field: string, text: string, probe: string) => void): void {
  walkScanned(content, (keys, text, probe) => fn(fieldPath(keys), text, probe));
}

/** Detects PII in every text field; a cache lets samples of one decision share the work. */
export function scanContent(content: unknown, detect: Detect, opts: DetectOptions, cache?: ScanCache): StoredPiiSpan[] {
  const spans: StoredPiiSpan[] = [];
  walkScanned(content, (keys, text, probe) => {
    let found = cache?.get(probe);
    if (!found) {
      found = detect(probe, opts);
      cache?.set(probe, found);
    }
    if (!found.length) return;
    const field = fieldPath(keys);
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

/**
 * The content with every accepted span replaced by its placeholder. One value keeps one placeholder and one
 * type across all fields (pii's redaction scope); pass a scope to share the numbering wider (a session).
 */
export function redactContent(
  content: unknown,
  spans: StoredPiiSpan[],
  scope: RedactionScope = createRedactionScope(),
): { redacted: unknown; placeholders: Record<string, string> } {
  const byField = new Map<string, StoredPiiSpan[]>();
  for (const s of spans) byField.set(s.field, [...(byField.get(s.field) ?? []), s]);
  const accepted = spans.filter((s) => s.accepted);
  const rejectedIds = spans.filter((s) => !s.accepted).map((s) => s.id);
  // Every field's reading of a value is seen before numbering, then numbers follow first appearance.
  scope.observe(accepted);
  forEachText(content, (field) => {
    const list = (byField.get(field) ?? []).filter((s) => s.accepted).sort((a, b) => a.start - b.start || b.end - a.end);
    for (const s of list) scope.placeholderFor(s);
  });
  const placeholders: Record<string, string> = {};
  // Fields without spans are still swept: a value detected once is hidden wherever it recurs.
  const redacted = mapTexts(content, (field, text) => {
    const result = scope.redact(text, byField.get(field) ?? [], { rejectedIds });
    Object.assign(placeholders, result.placeholders);
    return result.text;
  });
  return { redacted, placeholders };
}
