import { applyPatch, parsePatch, reversePatch } from 'diff';

/** The text a unified diff started from, given the text it produced (null when it cannot be rebuilt). */
export function textBeforePatch(after: string, unifiedDiff: string | null): string | null {
  if (!unifiedDiff) return after;
  try {
    const patches = parsePatch(unifiedDiff);
    const [patch] = patches;
    if (patches.length !== 1 || !patch) return null;
    const before = applyPatch(after, reversePatch(patch));
    return before === false ? null : before;
  } catch {
    return null;
  }
}
