import { createHash } from 'node:crypto';
import { formatPatch, structuredPatch, type StructuredPatch } from 'diff';
import type { LineChanges } from '../../shared/domain';
import { blockDiff } from './blockDiff';

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export interface TextDiff {
  diff: string;
  lines: LineChanges;
}

/**
 * Unified diff of one memory file, with line counts. Within each run of changes, removed lines
 * paired with added lines count as modified; the rest are pure additions or removals.
 * `null` content means the file does not exist.
 */
export function diffFile(fileName: string, before: string | null, after: string | null): TextDiff {
  // A workbench write diffs the same pair twice (its preview, then the recorded audit); remember the last one.
  if (lastDiff && lastDiff.fileName === fileName && lastDiff.before === before && lastDiff.after === after) {
    return { diff: lastDiff.result.diff, lines: { ...lastDiff.result.lines } };
  }
  const result = computeDiff(fileName, before, after);
  lastDiff = { fileName, before, after, result };
  return result;
}

let lastDiff: { fileName: string; before: string | null; after: string | null; result: TextDiff } | undefined;

function computeDiff(fileName: string, before: string | null, after: string | null): TextDiff {
  const oldName = before === null ? '/dev/null' : `a/${fileName}`;
  const newName = after === null ? '/dev/null' : `b/${fileName}`;
  return blockDiff(oldName, newName, before ?? '', after ?? '') ?? jsdiffFile(fileName, before, after);
}

/** diffFile through jsdiff alone: what blockDiff must match, and the path for every other change. */
export function jsdiffFile(fileName: string, before: string | null, after: string | null): TextDiff {
  const a = before ?? '';
  const b = after ?? '';
  const trimmed = trimCommonLines(a, b, CONTEXT_MARGIN);
  const patch = shiftedPatch(before === null ? '/dev/null' : `a/${fileName}`, after === null ? '/dev/null' : `b/${fileName}`, trimmed);
  return { diff: formatPatch(patch), lines: countLineChanges(patch) };
}

// A margin beyond the 3 context lines lets jsdiff pick the same alignment among repeated lines as on the whole text.
const CONTEXT_MARGIN = 3 + 32;

function shiftedPatch(oldName: string, newName: string, trimmed: { a: string; b: string; skipped: number }): StructuredPatch {
  const patch = structuredPatch(oldName, newName, trimmed.a, trimmed.b, undefined, undefined, { context: 3 });
  for (const h of patch.hunks) {
    h.oldStart += trimmed.skipped;
    h.newStart += trimmed.skipped;
  }
  return patch;
}

/** jsdiff's structuredPatch (context 3) for large texts with small changes, computed on the changed middle only. */
export function linePatch(oldName: string, newName: string, before: string, after: string): StructuredPatch {
  return shiftedPatch(oldName, newName, trimCommonLines(before, after, CONTEXT_MARGIN));
}

/**
 * Drops the lines both texts share at their start and end, keeping `keep` of them as context,
 * so jsdiff only works on the changed middle: a one-line edit of a 10,000-line file then costs
 * about a millisecond instead of tens. Small texts are returned as they are.
 */
function trimCommonLines(a: string, b: string, keep: number): { a: string; b: string; skipped: number } {
  if (a.length + b.length < 16_384) return { a, b, skipped: 0 };
  const la = a.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const lb = b.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const max = Math.min(la.length, lb.length);
  let prefix = 0;
  while (prefix < max && la[prefix] === lb[prefix]) prefix++;
  let suffix = 0;
  while (suffix < max - prefix && la[la.length - 1 - suffix] === lb[lb.length - 1 - suffix]) suffix++;
  const skipped = Math.max(0, prefix - keep);
  const cutEnd = Math.max(0, suffix - keep);
  if (skipped === 0 && cutEnd === 0) return { a, b, skipped: 0 };
  return { a: la.slice(skipped, la.length - cutEnd).join(''), b: lb.slice(skipped, lb.length - cutEnd).join(''), skipped };
}

/** Line counts of a patch. Context lines end a run of changes, so any context width gives the same counts. */
function countLineChanges(patch: StructuredPatch): LineChanges {
  let added = 0;
  let removed = 0;
  let modified = 0;
  for (const hunk of patch.hunks) {
    let runRemoved = 0;
    let runAdded = 0;
    const flush = () => {
      const paired = Math.min(runRemoved, runAdded);
      modified += paired;
      removed += runRemoved - paired;
      added += runAdded - paired;
      runRemoved = 0;
      runAdded = 0;
    };
    for (const line of hunk.lines) {
      if (line.startsWith('-')) {
        if (runAdded > 0) flush();
        runRemoved++;
      } else if (line.startsWith('+')) runAdded++;
      else if (line.startsWith(' ')) flush();
    }
    flush();
  }
  return { added, removed, modified };
}
