import { collectSamples } from '../../src/core/dataset';
import type { DB } from '../../src/core/db/connection';
import { ID_KEY_WORDS, type IdKey, type PlanColumns } from '../../src/core/db/repositories/exportSamples';
import { stringDigest } from '../../src/core/text/digestSet';
import { buildWorkspace } from '../../bench/dataset/workspace';
import { tempWorkspace } from './workspace';

/** A workspace of `decisions` recorded decisions, collected with auto-approval, handed to `check` and closed after. */
export async function withCollected(decisions: number, check: (db: DB, dir: string) => void): Promise<void> {
  const dir = tempWorkspace();
  const db = buildWorkspace(dir, decisions);
  try {
    await collectSamples({ db, workspaceDir: dir }, { autoApprove: true });
    check(db, dir);
  } finally {
    db.close();
  }
}

/** Each value replaced by the order of its first appearance: two lists that group alike give the same numbers. */
export function byFirstAppearance<T>(xs: Iterable<T>): number[] {
  const seen = new Map<T, number>();
  return Array.from(xs, (x) => {
    let k = seen.get(x);
    if (k === undefined) seen.set(x, (k = seen.size));
    return k;
  });
}

/**
 * A plan's columns as plain values to compare: rowids, each row's cluster (numbered by first appearance, since
 * the plan's own numbers depend on how it read the rows), its group's key (groupKeyText) and its flags.
 */
export const planView = (c: PlanColumns) => ({
  r: Array.from(c.r),
  cluster: byFirstAppearance(c.clusterNo),
  grp: Array.from(c.grpNo, (g) => Array.from(c.groupKey.subarray(g * ID_KEY_WORDS, (g + 1) * ID_KEY_WORDS)).join('.')),
  flags: Array.from(c.flags),
});

/** An id key for plans read with labels in tests: the id's digest, so that a plan's keys name its ids. */
export const idDigest: IdKey = (id, out, at) => out.set(stringDigest(id, new Uint32Array(ID_KEY_WORDS)), at * ID_KEY_WORDS);

/** The id keys (idDigest) of these ids, one after the other, as a plan holds them. */
export const idKeysOf = (ids: string[]): number[] => ids.flatMap((id) => Array.from(stringDigest(id, new Uint32Array(ID_KEY_WORDS))));

/** A group's key in planView when the plan was read with groupKey idDigest: the digest of its name. */
export const groupKeyText = (name: string): string => idKeysOf([name]).join('.');
