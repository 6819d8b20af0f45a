// The unified diff of the commonest memory-file write, one run of changed lines, without jsdiff.
// jsdiff's generic path (tokens, Myers' search, change objects, hunk assembly) cost a recorded write
// more than its SQL; a write usually appends, rewrites or drops a few adjacent lines. When the changed
// run is unambiguous, this builds the same text jsdiff would (structuredPatch with context 3, then
// formatPatch), line counts included; otherwise it answers undefined and jsdiff does the work.
// tests/text/blockDiff.test.ts compares the two over many random edits.
import type { LineChanges } from '../../shared/domain';

const CONTEXT = 3;
const UNDERLINE = '===================================================================';
const NO_NEWLINE = '\\ No newline at end of file';

/** Lines with their "\n", as jsdiff tokenizes text without "\r" (the last one may lack it). */
function lines(text: string): string[] {
  // Slices of the text, not concatenations: comparing them needs no flattening.
  const out: string[] = [];
  let start = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
    out.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** A name jsdiff prints as it is (no C-style quoting). */
const plainName = (name: string) => /^[\x20-\x7e]*$/.test(name) && !name.includes('"') && !name.includes('\\');

/** Pushes one hunk line per token: its marker, the text without "\n", and jsdiff's note when the newline is missing. */
function emit(out: string[], marker: string, tokens: string[], from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const t = tokens[i]!;
    if (t.endsWith('\n')) out.push(marker + t.slice(0, -1));
    else out.push(marker + t, NO_NEWLINE);
  }
}

/** Whether any of tokens[from, to) occurs in `others`: then another alignment may exist, and jsdiff decides. */
function sharesLine(tokens: string[], from: number, to: number, others: string[]): boolean {
  // A scan is cheapest for the usual run of a line or two; a long run on a long file gets a set.
  const seen = (to - from) * others.length > 20_000 ? new Set(others) : others;
  for (let i = from; i < to; i++) if (seen instanceof Set ? seen.has(tokens[i]!) : seen.includes(tokens[i]!)) return true;
  return false;
}

export function blockDiff(oldName: string, newName: string, a: string, b: string): { diff: string; lines: LineChanges } | undefined {
  if (a.includes('\r') || b.includes('\r') || !plainName(oldName) || !plainName(newName)) return undefined;
  const la = lines(a);
  const lb = lines(b);
  const max = Math.min(la.length, lb.length);
  let prefix = 0;
  while (prefix < max && la[prefix] === lb[prefix]) prefix++;
  let suffix = 0;
  while (suffix < max - prefix && la[la.length - 1 - suffix] === lb[lb.length - 1 - suffix]) suffix++;
  const endA = la.length - suffix;
  const endB = lb.length - suffix;
  const out = [UNDERLINE, `--- ${oldName}`, `+++ ${newName}`];
  // jsdiff's Index line, printed when both names are the same (both /dev/null: a file that never existed)
  if (oldName === newName) out.unshift(`Index: ${oldName}`);
  if (prefix === endA && prefix === endB) return { diff: out.join('\n') + '\n', lines: { added: 0, removed: 0, modified: 0 } };
  // The changed run is the only alignment when none of its lines occurs on the other side.
  if (sharesLine(la, prefix, endA, lb) || sharesLine(lb, prefix, endB, la)) return undefined;
  const before = Math.min(prefix, CONTEXT);
  const after = Math.min(suffix, CONTEXT);
  const removed = endA - prefix;
  const added = endB - prefix;
  const oldLines = before + removed + after;
  const newLines = before + added + after;
  // Unified diff quirk, as jsdiff prints it: an empty range starts one line earlier.
  const start = prefix - before + 1;
  out.push(`@@ -${oldLines === 0 ? start - 1 : start},${oldLines} +${newLines === 0 ? start - 1 : start},${newLines} @@`);
  emit(out, ' ', la, prefix - before, prefix);
  emit(out, '-', la, prefix, endA);
  emit(out, '+', lb, prefix, endB);
  emit(out, ' ', la, endA, endA + after);
  const modified = Math.min(removed, added);
  return { diff: out.join('\n') + '\n', lines: { added: added - modified, removed: removed - modified, modified } };
}
