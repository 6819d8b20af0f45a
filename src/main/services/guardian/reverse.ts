// Undoing one write when the file has changed since: reverse-apply only that write's patch.
// jsdiff's applyPatch of the reversed patch is tried first (it tolerates later lines added right
// next to the undone ones, the usual shape of memory appends); a three-way merge (node-diff3) with
// the write's after-content as base is the fallback, and its conflict regions explain a refusal.
import { applyPatch } from 'diff';
import { diff3Merge } from 'node-diff3';
import { linePatch } from '../textDiff';

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

/** Removes the change before→after from current, keeping everything else current has. */
export function reverseApply(before: string, after: string, current: string): ReverseResult {
  const reversed = linePatch('after', 'before', after, before);
  const patched = applyPatch(current, reversed);
  if (patched !== false) return { ok: true, content: patched };
  const regions = diff3Merge(splitLines(current), splitLines(after), splitLines(before));
  const conflicts: ConflictRegion[] = [];
  const merged: string[] = [];
  for (const r of regions) {
    if (r.ok) merged.push(...r.ok);
    else if (r.conflict) conflicts.push({ line: r.conflict.aIndex + 1, current: strip(r.conflict.a), written: strip(r.conflict.o), wanted: strip(r.conflict.b) });
  }
  if (!conflicts.length) return { ok: true, content: merged.join('') };
  return { ok: false, regions: conflicts };
}

export function describeConflict(file: string, regions: ConflictRegion[]): string {
  const parts = regions.slice(0, 3).map((r) => {
    const show = (label: string, lines: string[]) => `    ${label}: ${lines.length ? lines.map((l) => JSON.stringify(l)).join(' | ') : '(nothing)'}`;
    return [`  at line ${r.line}:`, show('now on disk', r.current), show('this write left', r.written), show('before the write', r.wanted)].join('\n');
  });
  const more = regions.length > 3 ? `\n  ... and ${regions.length - 3} more` : '';
  return `${file} was changed after this write in the same place, so the write cannot be undone on its own:\n${parts.join('\n')}${more}\nUse --force to restore the file as it was before the write (the current content is kept as a backup snapshot).`;
}
