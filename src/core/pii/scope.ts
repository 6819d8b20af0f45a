// One value, one placeholder: a redaction scope (a sample, or a session) maps each normalised value to a
// single placeholder whatever type each field's detector gave it, so a card number read as BANK_CARD in
// the Chinese conversation and as CREDIT_CARD in the English fact is "[CREDIT_CARD_1]" in both.
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { detectionView, foldValue, toOriginal } from './normalize';
import { resolveOverlaps, SPECIFICITY } from './resolve';
import type { PiiSpan, PiiType, RedactionResult } from './types';

export interface RedactOptions {
  /** Span ids a curator rejected: left as they are, and never swept. */
  rejectedIds?: Iterable<string>;
}

const NUMERIC_TYPES = new Set<PiiType>(['PHONE', 'CREDIT_CARD', 'BANK_CARD', 'CN_ID', 'QQ']);

// The samples of one decision share its PII values, and a redaction scope normalizes each value of each
// sample: a phone is parsed up to twice each time. The answers of the latest values are kept (a pure function).
const normalizedValues = new Map<string, string>();
const NORMALIZED_VALUES_MAX = 4096;

/**
 * The value as the scope compares it: folded (full-width, invisible characters), case-insensitive, and for
 * numbers only the digits, with a phone reduced to its national number ("+86 138-1234-5678" = "13812345678").
 */
export function normalizedValue(type: PiiType, value: string): string {
  const key = `${type}:${value}`; // no type holds a colon
  let normalized = normalizedValues.get(key);
  if (normalized === undefined) {
    normalized = normalize(type, value);
    if (normalizedValues.size >= NORMALIZED_VALUES_MAX) normalizedValues.clear();
    normalizedValues.set(key, normalized);
  }
  return normalized;
}

function normalize(type: PiiType, value: string): string {
  const folded = foldValue(value).toLowerCase();
  if (type === 'PHONE') {
    for (const region of ['CN', 'US'] as CountryCode[]) {
      const parsed = parsePhoneNumberFromString(folded, region);
      if (parsed?.isValid()) return parsed.nationalNumber;
    }
  }
  if (type === 'IBAN') return folded.replace(/\s+/g, '');
  if (NUMERIC_TYPES.has(type) || /^[\d\s().+-]+x?$/.test(folded)) {
    const digits = folded.replace(/[^\dx]/g, '');
    if (digits.length >= 5) return digits;
  }
  return folded.replace(/\s+/g, ' ').trim();
}

export interface RedactionScope {
  /**
   * Tells the scope about spans before any placeholder is handed out, so a value's type is chosen over
   * every field of the sample rather than by the first field. Optional: redact() also registers.
   */
  observe(spans: Iterable<Pick<PiiSpan, 'type' | 'value'>>): void;
  /** The placeholder of a value; the first call fixes its number, its type is the best one observed. */
  placeholderFor(span: Pick<PiiSpan, 'type' | 'value'>): string;
  /**
   * Replaces the spans with placeholders, then sweeps: any other spelling of a value this scope already
   * holds (with spaces, full-width, an invisible character) is replaced too.
   */
  redact(text: string, spans: PiiSpan[], opts?: RedactOptions): RedactionResult;
  /** Every placeholder handed out so far -> the first spelling of its value. */
  readonly placeholders: Record<string, string>;
}

interface Entry {
  type: PiiType;
  value: string;
  placeholder?: string;
}

export function createRedactionScope(): RedactionScope {
  const entries = new Map<string, Entry>();
  const counters = new Map<PiiType, number>();
  const placeholders: Record<string, string> = {};

  const entryFor = (span: Pick<PiiSpan, 'type' | 'value'>): Entry => {
    const key = normalizedValue(span.type, span.value);
    let e = entries.get(key);
    if (!e) {
      e = { type: span.type, value: span.value };
      entries.set(key, e);
    } else if (!e.placeholder && SPECIFICITY[span.type] > SPECIFICITY[e.type]) e.type = span.type;
    return e;
  };
  const assign = (e: Entry): string => {
    if (!e.placeholder) {
      const n = (counters.get(e.type) ?? 0) + 1;
      counters.set(e.type, n);
      e.placeholder = `[${e.type}_${n}]`;
      placeholders[e.placeholder] = e.value;
    }
    return e.placeholder;
  };
  const placeholderFor = (span: Pick<PiiSpan, 'type' | 'value'>): string => assign(entryFor(span));

  return {
    placeholders,
    observe(spans) {
      for (const s of spans) entryFor(s);
    },
    placeholderFor,
    redact(text, spans, opts) {
      const rejectedIds = new Set(opts?.rejectedIds ?? []);
      const valid = spans.filter((s) => s.start >= 0 && s.end <= text.length && s.start < s.end && text.slice(s.start, s.end) === s.value);
      const rejected = valid.filter((s) => rejectedIds.has(s.id));
      const applied = resolveOverlaps(valid.filter((s) => !rejectedIds.has(s.id)));
      // Register every applied value first: a value seen only later in this text still wins the sweep.
      const own = applied.map((span) => ({ span, entry: entryFor(span) }));
      const swept = sweepKnownValues(text, [...applied, ...rejected], entries);
      const all = [...own, ...swept].sort((a, b) => a.span.start - b.span.start);
      const local: Record<string, string> = {};
      let out = '';
      let cursor = 0;
      for (const { span, entry } of all) {
        const ph = assign(entry);
        local[ph] = placeholders[ph]!; // assign() registered it
        out += text.slice(cursor, span.start) + ph;
        cursor = span.end;
      }
      out += text.slice(cursor);
      return { text: out, placeholders: local, applied };
    },
  };
}

// Candidate spellings of a held value: digit groups (numbers) and word-like runs (ids, emails, names).
const DIGIT_GROUPS = /\+?\d(?:[\d().]|[ -](?=[\d(]))*\d/g;

/**
 * Finds values the scope already holds that no span covers: "4111 1111 1111 1111" detected in one field
 * and written "4111-1111-1111-1111" (or with a zero-width space) in another, or a value in a field the
 * detector skipped. Numbers match by digits on group boundaries; other values by folded text on word edges.
 */
function sweepKnownValues(text: string, covered: PiiSpan[], entries: Map<string, Entry>): { span: PiiSpan; entry: Entry }[] {
  if (!entries.size || !text) return [];
  const view = detectionView(text);
  const v = view?.text ?? text;
  // Lowercasing can change the length ("İ"): then compare as written so offsets stay valid.
  const lowered = v.toLowerCase();
  const lower = lowered.length === v.length ? lowered : v;
  const found: { span: PiiSpan; entry: Entry }[] = [];
  const taken = (s: number, e: number) =>
    covered.some((c) => s < c.end && c.start < e) || found.some(({ span: c }) => s < c.end && c.start < e);
  const add = (vs: number, ve: number, entry: Entry) => {
    const [s, end] = view ? toOriginal(view, vs, ve) : [vs, ve];
    if (taken(s, end)) return;
    const span: PiiSpan = {
      id: `${entry.type}:${s}:${end}`,
      type: entry.type,
      start: s,
      end,
      value: text.slice(s, end),
      confidence: 1,
      detector: 'scope:sweep',
    };
    found.push({ span, entry });
  };
  const numeric = [...entries].filter(([k]) => /^\d[\dx]{4,}$/.test(k));
  if (numeric.length) {
    for (const m of v.matchAll(DIGIT_GROUPS)) {
      const groups = [...m[0].matchAll(/\d+/g)].map((g) => ({
        start: m.index + g.index,
        end: m.index + g.index + g[0].length,
        digits: g[0],
      }));
      for (let i = 0; i < groups.length; i++) {
        let digits = '';
        for (let j = i; j < groups.length && digits.length < 20; j++) {
          const group = groups[j]!; // j < groups.length
          digits += group.digits;
          const hit = numeric.find(
            ([k]) =>
              k === digits ||
              (k.length >= 7 &&
                digits.length - k.length <= 4 &&
                digits.endsWith(k) &&
                /^(?:0{0,2}86|1|0)$/.test(digits.slice(0, -k.length))),
          );
          if (hit) {
            add(i === 0 && m[0].startsWith('+') ? m.index : groups[i]!.start, group.end, hit[1]);
            i = j;
            break;
          }
        }
      }
    }
  }
  for (const [key, e] of entries) {
    if (numeric.some(([k]) => k === key) || key.length < (/[\u4e00-\u9fff]/.test(key) ? 2 : 4)) continue;
    for (let at = lower.indexOf(key); at >= 0; at = lower.indexOf(key, at + 1)) {
      const end = at + key.length;
      if (/[\p{L}\p{N}_]/u.test(key.charAt(0)) && /[\p{L}\p{N}_]/u.test(lower[at - 1] ?? '') && !/[\u4e00-\u9fff]/.test(key.charAt(0)))
        continue;
      if (
        /[\p{L}\p{N}_]/u.test(key.charAt(key.length - 1)) &&
        /[\p{L}\p{N}_]/u.test(lower[end] ?? '') &&
        !/[\u4e00-\u9fff]/.test(key.charAt(key.length - 1))
      )
        continue;
      add(at, end, e);
    }
  }
  return found;
}
