// How the lines of one version map onto the previous one. Lines kept by the diff inherit their
// attribution; every other line is attributed to the new version. An added line whose exact text
// was removed elsewhere in the same write was moved; an added line paired by position with a
// similar removed line in the same hunk was reworded: both keep a link to their earlier line.
import { diffArrays } from 'diff';

/** Per line: the version (seq) that produced it and the line's index in that version. */
export interface LineMap {
  producer: Int32Array;
  index: Int32Array;
}

/** [lineIndex, indexInPreviousVersion] for the lines a version moved or reworded. */
export type Origins = Array<[number, number]>;

export const splitLines = (content: string | null): string[] => {
  if (!content) return [];
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

export function encodeMap(map: LineMap): string {
  const runs: number[] = [];
  for (let i = 0; i < map.producer.length; i++) {
    // runs holds whole triples (producer, first index, length); i is inside both arrays
    const n = runs.length;
    if (n && runs[n - 3] === map.producer[i] && runs[n - 2]! + runs[n - 1]! === map.index[i]) runs[n - 1]!++;
    else runs.push(map.producer[i]!, map.index[i]!, 1);
  }
  return JSON.stringify(runs);
}

export function decodeMap(text: string): LineMap {
  const runs = JSON.parse(text) as number[];
  let total = 0;
  for (let r = 2; r < runs.length; r += 3) total += runs[r]!;
  const producer = new Int32Array(total);
  const index = new Int32Array(total);
  let at = 0;
  for (let r = 0; r < runs.length; r += 3) {
    const [seq = 0, first = 0, length = 0] = runs.slice(r, r + 3);
    for (let k = 0; k < length; k++, at++) {
      producer[at] = seq;
      index[at] = first + k;
    }
  }
  return { producer, index };
}

function bigrams(s: string): Set<string> {
  const t = s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  const out = new Set<string>();
  for (let i = 0; i + 1 < t.length; i++) out.add(t.slice(i, i + 2));
  return out;
}

/** Dice similarity of character bigrams: works for English and Chinese alike. */
export function similarity(a: string, b: string): number {
  const x = bigrams(a);
  const y = bigrams(b);
  if (!x.size || !y.size) return a.trim() === b.trim() ? 1 : 0;
  let shared = 0;
  for (const g of x) if (y.has(g)) shared++;
  return (2 * shared) / (x.size + y.size);
}

const REWORD_SIMILARITY = 0.4;

interface Hunk {
  removed: number[];
  added: number[];
}

/** Diffs the changed middle only: large files with small edits stay cheap. */
function alignedHunks(a: string[], b: string[]): { kept: Array<[number, number]>; hunks: Hunk[] } {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const kept: Array<[number, number]> = [];
  for (let i = 0; i < start; i++) kept.push([i, i]);
  const hunks: Hunk[] = [];
  let ia = start;
  let ib = start;
  let hunk: Hunk | null = null;
  for (const part of diffArrays(a.slice(start, endA), b.slice(start, endB))) {
    const n = part.count ?? part.value.length;
    if (!part.added && !part.removed) {
      hunk = null;
      for (let k = 0; k < n; k++) kept.push([ia++, ib++]);
      continue;
    }
    if (!hunk) hunks.push((hunk = { removed: [], added: [] }));
    for (let k = 0; k < n; k++) part.added ? hunk.added.push(ib++) : hunk.removed.push(ia++);
  }
  for (let k = 0; endA + k < a.length; k++) kept.push([endA + k, endB + k]);
  return { kept, hunks };
}

/** The line map of a new version (seq) from the previous version's lines and map. */
export function nextLineMap(prevLines: string[], prevMap: LineMap, lines: string[], seq: number): { map: LineMap; origins: Origins } {
  const producer = new Int32Array(lines.length);
  const index = new Int32Array(lines.length);
  const { kept, hunks } = alignedHunks(prevLines, lines);
  // alignedHunks pairs indexes of prevLines and lines, and prevMap has one entry per previous line
  for (const [ia, ib] of kept) {
    producer[ib] = prevMap.producer[ia]!;
    index[ib] = prevMap.index[ia]!;
  }
  const origins: Origins = [];
  const removedByText = new Map<string, number[]>();
  for (const h of hunks) {
    for (const ia of h.removed) {
      const text = prevLines[ia]!;
      removedByText.set(text, [...(removedByText.get(text) ?? []), ia]);
    }
  }
  const claimed = new Set<number>();
  for (const h of hunks) {
    for (const ib of h.added) {
      producer[ib] = seq;
      index[ib] = ib;
      const text = lines[ib]!;
      const moved = removedByText.get(text)?.find((ia) => !claimed.has(ia));
      if (moved !== undefined && text.trim()) {
        claimed.add(moved);
        origins.push([ib, moved]);
      }
    }
  }
  for (const h of hunks) pairRewordings(h, prevLines, lines, claimed, origins);
  origins.sort((x, y) => x[0] - y[0]);
  return { map: { producer, index }, origins };
}

function pairRewordings(h: Hunk, prevLines: string[], lines: string[], claimed: Set<number>, origins: Origins): void {
  const linked = new Set(origins.map((o) => o[0]));
  const removed = h.removed.filter((ia) => !claimed.has(ia));
  const added = h.added.filter((ib) => !linked.has(ib));
  for (let k = 0; k < Math.min(removed.length, added.length); k++) {
    const ia = removed[k]!;
    const ib = added[k]!;
    if (similarity(prevLines[ia]!, lines[ib]!) >= REWORD_SIMILARITY) {
      claimed.add(ia);
      origins.push([ib, ia]);
    }
  }
}

export const emptyMap = (): LineMap => ({ producer: new Int32Array(0), index: new Int32Array(0) });
