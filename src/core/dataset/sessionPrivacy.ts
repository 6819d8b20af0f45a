// A value the detector flagged in one sample of a session stays hidden in every sample of that session
// at export: detection depends on context (a name after "由" in one turn, bare in the next), and the
// context windows of consecutive turns repeat the same messages.
import type { DB } from '../db/connection';
import { listSessionSampleSpans } from '../db/repositories/piiValues';
import { applyValueRules, type ValueRule } from '../curation/piiValues';
import type { StoredPiiSpan } from './privacy';

const HAN = /\p{Script=Han}/u;

export interface SessionValue {
  value: string;
  type: string;
}

/** Accepted span values of a session's samples, longest first (cached per session for one export). */
export class SessionValues {
  private readonly cache = new Map<string, SessionValue[]>();

  /** rules: the curator's per-value decisions, so a value kept as "not PII" stays visible here too. */
  constructor(
    private readonly db: DB,
    private readonly rules: (ValueRule & { appliesAfter?: number })[] = [],
  ) {}

  of(sessionId: string): SessionValue[] {
    let list = this.cache.get(sessionId);
    if (list) return list;
    const seen = new Map<string, string>();
    for (const row of listSessionSampleSpans(this.db, sessionId)) {
      const stored = JSON.parse(row.spans) as StoredPiiSpan[];
      for (const s of applyValueRules(stored, { sessionId, createdAt: row.createdAt }, this.rules) ?? stored) {
        // short Latin values ("Al", "42") would hide ordinary words; two Han characters are a name
        if (s.accepted && (s.value.length >= 4 || (s.value.length >= 2 && HAN.test(s.value)))) seen.set(s.value, s.type);
      }
    }
    list = [...seen.entries()].map(([value, type]) => ({ value, type })).sort((a, b) => b.value.length - a.value.length);
    if (this.cache.size > 1000) this.cache.clear();
    this.cache.set(sessionId, list);
    return list;
  }
}

/** Replaces leftover session values in every text of the content with a placeholder of their type. */
export function hideSessionValues<T>(content: T, values: SessionValue[]): T {
  if (!values.length) return content;
  const text = JSON.stringify(content);
  if (!values.some((v) => text.includes(JSON.stringify(v.value).slice(1, -1)))) return content;
  // numbering continues after the sample's own placeholders of that type, so none is reused
  const next = new Map<string, number>();
  for (const [, type = '', n] of text.matchAll(/\[([A-Z_]+)_(\d+)\]/g)) next.set(type, Math.max(next.get(type) ?? 0, Number(n)));
  const placeholder = new Map<string, string>();
  const hide = (s: string): string => {
    let out = s;
    for (const v of values) {
      if (!out.includes(v.value)) continue;
      let p = placeholder.get(v.value);
      if (!p) {
        const n = (next.get(v.type) ?? 0) + 1;
        next.set(v.type, n);
        p = `[${v.type}_${n}]`;
        placeholder.set(v.value, p);
      }
      out = out.split(v.value).join(p);
    }
    return out;
  };
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') return hide(x);
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v)]));
    return x;
  };
  return walk(content) as T;
}
