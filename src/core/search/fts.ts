// Turning what a person typed into a safe FTS5 query. The trigram tokenizer matches substrings of
// three or more characters; shorter terms can only be checked with instr(), which the callers bound.

export interface TextQuery {
  /** FTS5 MATCH expression: every long term quoted as a phrase, ANDed; null when no term is long enough. */
  match: string | null;
  /** Every term, lower-cased, for highlighting and for checking short terms. */
  terms: string[];
  shortTerms: string[];
}

const charLength = (s: string) => [...s].length;

export function parseTextQuery(input: string): TextQuery {
  const terms = input
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => t.toLowerCase());
  const long = terms.filter((t) => charLength(t) >= 3);
  const shortTerms = terms.filter((t) => charLength(t) < 3);
  // Quoting makes every character literal to FTS5 (AND, NEAR, *, ", column filters): user input never parses as syntax.
  const match = long.length ? long.map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND ') : null;
  return { match, terms, shortTerms };
}

export interface MatchRange {
  start: number;
  end: number;
}

/** Where the terms occur in text (UTF-16 offsets, case-insensitive), merged and sorted. */
export function findMatches(text: string, terms: string[]): MatchRange[] {
  const lower = text.toLowerCase();
  // toLowerCase can change the length of some characters; then offsets would lie, so match case-sensitively.
  const hay = lower.length === text.length ? lower : text;
  const ranges: MatchRange[] = [];
  for (const term of terms) {
    if (!term) continue;
    for (let at = hay.indexOf(term); at !== -1; at = hay.indexOf(term, at + term.length)) ranges.push({ start: at, end: at + term.length });
  }
  ranges.sort((a, b) => a.start - b.start);
  const merged: MatchRange[] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  return merged;
}

export interface Snippet {
  text: string;
  /** Match offsets within `text`. */
  matches: MatchRange[];
  truncatedStart: boolean;
  truncatedEnd: boolean;
}

/** A window of text around the first match, with match offsets relative to the window. Never HTML. */
export function snippet(text: string, terms: string[], radius = 60): Snippet {
  const all = findMatches(text, terms);
  const first = all[0]?.start ?? 0;
  let start = Math.max(0, first - radius);
  let end = Math.min(text.length, (all[0]?.end ?? 0) + radius * 2);
  // Do not cut a surrogate pair in half.
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start] ?? '')) start--;
  if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end++;
  const matches = all.filter((m) => m.start >= start && m.end <= end).map((m) => ({ start: m.start - start, end: m.end - start }));
  return { text: text.slice(start, end), matches, truncatedStart: start > 0, truncatedEnd: end < text.length };
}
