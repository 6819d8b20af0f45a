// Matches are highlighted from offsets as React elements: the text itself is never parsed as HTML.
import type { ReactNode } from 'react';
import { revealInvisible } from './VisibleText';

export interface TextRange {
  start: number;
  end: number;
}

export function splitByRanges(text: string, ranges: readonly TextRange[]): { text: string; hit: boolean }[] {
  const sorted = [...ranges].filter((r) => r.end > r.start && r.start < text.length).sort((a, b) => a.start - b.start);
  const out: { text: string; hit: boolean }[] = [];
  let pos = 0;
  for (const r of sorted) {
    const start = Math.max(r.start, pos);
    const end = Math.min(r.end, text.length);
    if (end <= start) continue;
    if (start > pos) out.push({ text: text.slice(pos, start), hit: false });
    out.push({ text: text.slice(start, end), hit: true });
    pos = end;
  }
  if (pos < text.length) out.push({ text: text.slice(pos), hit: false });
  return out;
}

/** Offsets of every case-insensitive occurrence of `needle`, for texts the server sent without offsets. */
export function findRanges(text: string, needle: string): TextRange[] {
  const q = needle.trim().toLowerCase();
  if (!q) return [];
  const hay = text.toLowerCase();
  const out: TextRange[] = [];
  for (let i = hay.indexOf(q); i !== -1; i = hay.indexOf(q, i + q.length)) out.push({ start: i, end: i + q.length });
  return out;
}

export function Highlight({ text, ranges }: { text: string; ranges: readonly TextRange[] }): ReactNode {
  return (
    <>
      {splitByRanges(text, ranges).map((part, i) =>
        part.hit ? <mark key={i}>{revealInvisible(part.text)}</mark> : <span key={i}>{revealInvisible(part.text)}</span>,
      )}
    </>
  );
}
