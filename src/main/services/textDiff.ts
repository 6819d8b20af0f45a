import { createHash } from 'node:crypto';
import { createTwoFilesPatch, structuredPatch } from 'diff';
import type { LineChanges } from '../../shared/domain';

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
  const a = before ?? '';
  const b = after ?? '';
  const diff = createTwoFilesPatch(
    before === null ? '/dev/null' : `a/${fileName}`,
    after === null ? '/dev/null' : `b/${fileName}`,
    a,
    b,
    undefined,
    undefined,
    { context: 3 },
  );
  return { diff, lines: countLineChanges(a, b) };
}

export function countLineChanges(before: string, after: string): LineChanges {
  const patch = structuredPatch('a', 'b', before, after, undefined, undefined, { context: 0 });
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
