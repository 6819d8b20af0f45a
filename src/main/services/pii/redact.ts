import { resolveOverlaps } from './resolve';
import type { PiiSpan, PiiType, RedactionResult } from './types';

export interface RedactOptions {
  /** Span ids a curator rejected: left as they are. */
  rejectedIds?: Iterable<string>;
}

/** Same person, same number: "138 1234 5678" and "13812345678" share a placeholder. */
function canonicalValue(type: PiiType, value: string): string {
  switch (type) {
    case 'PHONE':
    case 'CREDIT_CARD':
    case 'BANK_CARD': {
      const digits = value.replace(/\D/g, '');
      // +86 13812345678 and 13812345678 are the same mobile.
      return type === 'PHONE' && /^(?:0086|86)1[3-9]\d{9}$/.test(digits) ? digits.replace(/^0{0,2}86/, '') : digits;
    }
    case 'IBAN':
    case 'CN_ID':
      return value.replace(/\s/g, '').toUpperCase();
    case 'EMAIL':
      return value.toLowerCase();
    default:
      return value;
  }
}

export interface Redactor {
  /** Redacts one text; placeholders continue the numbering of earlier calls. */
  redact(text: string, spans: PiiSpan[], opts?: RedactOptions): RedactionResult;
  /** Every placeholder handed out so far -> its original value. */
  readonly placeholders: Record<string, string>;
}

/**
 * One redactor per sample: the instruction, input and output fields of a sample share one numbering,
 * so "[EMAIL_1]" in the input is the same address as "[EMAIL_1]" in the output.
 */
export function createRedactor(): Redactor {
  const byValue = new Map<string, string>();
  const counters = new Map<PiiType, number>();
  const placeholders: Record<string, string> = {};

  const placeholderFor = (span: PiiSpan): string => {
    const key = `${span.type}\u0000${canonicalValue(span.type, span.value)}`;
    let ph = byValue.get(key);
    if (!ph) {
      const n = (counters.get(span.type) ?? 0) + 1;
      counters.set(span.type, n);
      ph = `[${span.type}_${n}]`;
      byValue.set(key, ph);
      placeholders[ph] = span.value;
    }
    return ph;
  };

  return {
    placeholders,
    redact(text, spans, opts) {
      const rejected = new Set(opts?.rejectedIds ?? []);
      const usable = spans.filter(
        (s) => !rejected.has(s.id) && s.start >= 0 && s.end <= text.length && s.start < s.end && text.slice(s.start, s.end) === s.value,
      );
      const applied = resolveOverlaps(usable);
      const local: Record<string, string> = {};
      let out = '';
      let cursor = 0;
      for (const span of applied) {
        const ph = placeholderFor(span);
        // The first spelling seen stands for the value ("138 1234 5678" and "13812345678" are one phone).
        local[ph] = placeholders[ph];
        out += text.slice(cursor, span.start) + ph;
        cursor = span.end;
      }
      out += text.slice(cursor);
      return { text: out, placeholders: local, applied };
    },
  };
}

export function redact(text: string, spans: PiiSpan[], opts?: RedactOptions): RedactionResult {
  return createRedactor().redact(text, spans, opts);
}
