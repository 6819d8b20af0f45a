// A value the detector flagged in one sample of a session stays hidden in every sample of that session
// at export: detection depends on context (a name after "由" in one turn, bare in the next), and the
// context windows of consecutive turns repeat the same messages.
import type { DB } from '../db/connection';
import { listSessionsSampleSpans } from '../db/repositories/exportSamples';
import { applyValueRules, type ValueRule } from '../curation/piiValues';
import type { StoredPiiSpan } from './privacy';

const HAN = /\p{Script=Han}/u;

export interface SessionValue {
  value: string;
  type: string;
}

/**
 * Sessions whose values are kept for one export. A session's samples are spread through the table, so
 * most pages meet most sessions again: with 2,000 kept, a 100,000-decision workspace of 4,000 sessions
 * dropped them every few pages and read each page's ~400 sessions' spans again (about 9% of an alpaca
 * export). A session without values costs a map entry (they share one empty list), so 50,000 stay small.
 */
const CACHED_SESSIONS = 50_000;
/** The values of a session without any, shared. */
const NO_VALUES: SessionValue[] = [];

/** Accepted span values of a session's samples, longest first (cached per session for one export). */
export class SessionValues {
  private readonly cache = new Map<string, SessionValue[]>();

  /** rules: the curator's per-value decisions, so a value kept as "not PII" stays visible here too. */
  constructor(
    private readonly db: DB,
    private readonly rules: (ValueRule & { appliesAfter?: number })[] = [],
  ) {}

  /** Reads the values of these sessions that are not cached yet, in one query (an export calls it once per page). */
  load(sessionIds: readonly string[]): void {
    let missing = [...new Set(sessionIds)].filter((id) => !this.cache.has(id));
    if (!missing.length) return;
    if (this.cache.size + missing.length > CACHED_SESSIONS) {
      this.cache.clear();
      missing = [...new Set(sessionIds)];
    }
    const rows = new Map<string, { spans: string; createdAt: number }[]>();
    for (const row of listSessionsSampleSpans(this.db, missing)) {
      const list = rows.get(row.sessionId);
      if (list) list.push(row);
      else rows.set(row.sessionId, [row]);
    }
    for (const id of missing) this.cache.set(id, this.valuesOf(id, rows.get(id) ?? []));
  }

  of(sessionId: string): SessionValue[] {
    if (!this.cache.has(sessionId)) this.load([sessionId]);
    return this.cache.get(sessionId)!; // load() caches every session it is given
  }

  /** The values of one session's span rows (in rowid order: the last type seen for a value wins). */
  private valuesOf(sessionId: string, rows: { spans: string; createdAt: number }[]): SessionValue[] {
    if (!rows.length) return NO_VALUES;
    const seen = new Map<string, string>();
    for (const row of rows) {
      const stored = JSON.parse(row.spans) as StoredPiiSpan[];
      for (const s of applyValueRules(stored, { sessionId, createdAt: row.createdAt }, this.rules) ?? stored) {
        // short Latin values ("Al", "42") would hide ordinary words; two Han characters are a name
        if (s.accepted && (s.value.length >= 4 || (s.value.length >= 2 && HAN.test(s.value)))) seen.set(s.value, s.type);
      }
    }
    if (!seen.size) return NO_VALUES;
    return [...seen.entries()].map(([value, type]) => ({ value, type })).sort((a, b) => b.value.length - a.value.length);
  }
}

/** Replaces leftover session values in every text of the content with a placeholder of their type. */
export function hideSessionValues<T>(content: T, values: SessionValue[]): T {
  // the work is in a function of its own: V8 allocates the closures' context on entry to the function
  // that declares them, which was about 10 MB per csv export for samples without a session value
  if (!values.length) return content;
  const text = JSON.stringify(content);
  if (!values.some((v) => text.includes(JSON.stringify(v.value).slice(1, -1)))) return content;
  return replaceSessionValues(content, text, values);
}

function replaceSessionValues<T>(content: T, text: string, values: SessionValue[]): T {
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
