import fs from 'node:fs';
import path from 'node:path';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import type { ServiceContext } from '../../src/core/context';
import { listContextItems } from '../../src/core/db/repositories/contexts';
import { sharedDir, tempWorkspace } from '../helpers/workspace';

export const fixtures = path.join(sharedDir, 'fixtures');
export const pluginRoot = path.join(fixtures, 'reflection-plugin', 'plugin-root');
export const pluginRootDebug = path.join(fixtures, 'reflection-plugin', 'plugin-root-debug');
export const pluginWorkspace = path.join(fixtures, 'reflection-plugin', 'workspace');
export const guardianLogFixture = path.join(pluginWorkspace, '.openclaw-reflection', 'write-guardian.log.jsonl');
export const openclawDir = path.join(fixtures, 'openclaw');
export const evalsDir = path.join(sharedDir, 'benchmarks', 'reflection-evals');

export function newContext(): ServiceContext & { db: DB } {
  const workspaceDir = tempWorkspace('reflection-import-');
  const { db } = openWorkspaceDatabase(workspaceDir);
  return { db, workspaceDir, now: () => Date.UTC(2026, 10, 22, 12) };
}

export const count = (db: DB, table: string): number => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

/** Row counts of every table an import writes data into. */
export function dataCounts(db: DB): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of [
    'sessions',
    'conversation_turns',
    'conversation_contexts',
    'conversation_context_windows',
    'memory_gate_decisions',
    'write_guardian_audit',
    'dataset_samples',
  ]) {
    out[t] = count(db, t);
  }
  return out;
}

/** A turn's context as the readers return it, whichever form stores it (rows or a window, migration 0178). */
export const contextOf = (db: DB, turnId: string): Array<{ role: string; message: string }> =>
  listContextItems(db, turnId).map(({ role, message }) => ({ role, message }));

/** Every turn's context, by turn id, as the readers return it. */
export const allContexts = (db: DB) =>
  (db.prepare('SELECT id FROM conversation_turns ORDER BY id').pluck().all() as string[]).map((id) => [id, listContextItems(db, id)]);

export function writeFile(file: string, content: string | Buffer): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

export function lines(file: string): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
}
