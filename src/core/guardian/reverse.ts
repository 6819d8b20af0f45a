// Undoing one write when the file has changed since: reverse-apply only that write's patch.
// jsdiff's applyPatch of the reversed patch is tried first (it tolerates later lines added right
// next to the undone ones, the usual shape of memory appends); a three-way merge (node-diff3) with
// the write's after-content as base is the fallback, and its conflict regions explain a refusal.
import { applyPatch } from 'diff';
import { diff3Merge } from 'node-diff3';
import { linePatch } from '../text/diff';

export interface ConflictRegion {
  /** 1-based line in the current file where the conflict starts. */
  line: number;
  /** The lines as they are on disk now. */
  current: string[];
  /** The lines as the undone write left them. */
  written: string[];
  /** The lines as they were before the write (what the rollback wants). */
  wanted: string[];
}

export type ReverseResult = { ok: true; content: string } | { ok: false; regions: ConflictRegion[] };

export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

const strip = (lines: string[]) => lines.map((l) => l.replace(/\n$/, ''));

/** Unchanged lines kept around the changed middle, so patches keep their context and alignment. */
const MARGIN = 35;

/** Removes the change before→after from current, keeping everything else current has. */
export function reverseApply(before: string, after: string, current: string): ReverseResult {
  const patched = applyPatch(current, linePatch('after', 'before', after, before));
  if (patched !== false) return { ok: true, content: patched };
  // Lines all three texts share at the start and the end are touched by neither the write nor later
  // edits: merge the middle only (a three-way merge of whole 10,000-line files takes about a second).
  const la = splitLines(after);
  const lb = splitLines(before);
  const lc = splitLines(current);
  const min = Math.min(la.length, lb.length, lc.length);
  let prefix = 0;
  while (prefix < min && la[prefix] === lb[prefix] && la[prefix] === lc[prefix]) prefix++;
  let suffix = 0;
  const at = (l: string[], k: number) => l[l.length - 1 - k];
  while (suffix < min - prefix && at(la, suffix) === at(lb, suffix) && at(la, suffix) === at(lc, suffix)) suffix++;
  const cut = Math.max(0, prefix - MARGIN);
  const cutEnd = Math.max(0, suffix - MARGIN);
  const middle = (l: string[]) => l.slice(cut, l.length - cutEnd);
  const conflicts: ConflictRegion[] = [];
  const merged: string[] = [];
  for (const r of diff3Merge(middle(lc), middle(la), middle(lb))) {
    if (r.ok) merged.push(...r.ok);
    else if (r.conflict)
      conflicts.push({
        line: cut + r.conflict.aIndex + 1,
        current: strip(r.conflict.a),
        written: strip(r.conflict.o),
        wanted: strip(r.conflict.b),
      });
  }
  if (conflicts.length) return { ok: false, regions: conflicts };
  return { ok: true, content: lc.slice(0, cut).join('') + merged.join('') + lc.slice(lc.length - cutEnd).join('') };
}

export function describeConflict(file: string, regions: ConflictRegion[]): string {
  const parts = regions.slice(0, 3).map((r) => {
    const show = (label: string, lines: string[]) =>
      `    ${label}: ${lines.length ? lines.map((l) => JSON.stringify(l)).join(' | ') : '(nothing)'}`;
    return [
      `  at line ${r.line}:`,
      show('now on disk', r.current),
      show('this write left', r.written),
      show('before the write', r.wanted),
    ].join('\n');
  });
  const more = regions.length > 3 ? `\n  ... and ${regions.length - 3} more` : '';
  return `${file} was changed after this write in the same place, so the write cannot be undone on its own:\n${parts.join('\n')}${more}\nUse --force to restore the file as it was before the write (the current content is kept as a backup snapshot).`;
}
