// The rows of a small collected bench workspace, for migration tests that load real samples into a
// database at an older version and migrate it.
import { buildWorkspace } from '../../bench/dataset/workspace';
import { collectSamples } from '../../src/core/dataset';
import { tempWorkspace } from './workspace';

type Row = Record<string, unknown>;

/** Every table a sample refers to, in the order they must be inserted, then the samples. */
const TABLES = [
  'sessions',
  'conversation_turns',
  'memory_gate_decisions',
  'file_snapshots',
  'write_guardian_audit',
  'behavior_corrections',
  'dataset_samples',
];

/** The samples of a bench workspace of `decisions` decisions, collected, and their parents, each in rowid order. */
export async function collectedRows(decisions: number): Promise<Record<string, Row[]>> {
  const dir = tempWorkspace();
  const db = buildWorkspace(dir, decisions);
  try {
    await collectSamples({ db, workspaceDir: dir }, { autoApprove: true });
    return Object.fromEntries(TABLES.map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all() as Row[]]));
  } finally {
    db.close();
  }
}
