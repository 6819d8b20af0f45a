import { ulid } from 'ulid';
import { writeTx, type DB } from '../db/connection';
import { checkpointWal, reclaimFreePages, withSecureDelete } from '../db/maintenance';
import { AppError } from '../../shared/errors';
import { EXCLUSION_KINDS, type ExclusionDto, type PurgeOutcome } from '../../shared/contract';
import { actorOf, nowOf, type ServiceContext } from '../context';
import {
  deleteExclusionById,
  deleteSessionsAndTheirRows,
  findExclusionById,
  findExclusionIdByValue,
  findSessionIdByAlias,
  insertExclusion,
  listExclusionRows,
  listSessionIdsMatching,
  type ExclusionKind,
  type ExclusionRow,
} from '../db/repositories/exclusions';
import { countTableRows, tableExists } from '../db/repositories/schema';

export { EXCLUSION_KINDS };
export type { ExclusionKind };

export interface AddExclusionInput {
  kind: ExclusionKind;
  value: string;
  reason?: string;
}

export function sessionsMatching(db: DB, kind: ExclusionKind, value: string): string[] {
  return listSessionIdsMatching(db, kind, value);
}

function toExclusion(db: DB, r: ExclusionRow): ExclusionDto {
  return {
    id: r.id,
    kind: r.kind,
    value: r.value,
    reason: r.reason,
    createdBy: r.created_by,
    createdAt: r.created_at,
    sessions: sessionsMatching(db, r.kind, r.value).length,
  };
}

function getRow(db: DB, id: string): ExclusionRow {
  const row = findExclusionById(db, id);
  if (!row) throw new AppError('NotFound', `exclusion ${id} not found (see \`reflection exclude list\`)`);
  return row;
}

/** Excludes a session, a channel target ("<channel>:<target>") or an account from collection and every export. */
export function addExclusion(ctx: ServiceContext, input: AddExclusionInput): ExclusionDto {
  if (!EXCLUSION_KINDS.includes(input.kind)) throw new AppError('Invalid', `kind: expected one of ${EXCLUSION_KINDS.join(', ')}`);
  let value = typeof input.value === 'string' ? input.value.trim() : '';
  if (!value) throw new AppError('Invalid', `value: the ${input.kind} to exclude is empty`);
  if (input.kind === 'target' && !value.includes(':')) {
    throw new AppError('Invalid', `target: expected "<channel>:<target>" (e.g. discord:channel:1478342210), got "${value}"`);
  }
  if (input.kind === 'session') {
    // An OpenClaw session key (agent:main:...) names the same session as our canonical key.
    const canonical = findSessionIdByAlias(ctx.db, value);
    if (canonical) value = canonical;
  }
  const row: ExclusionRow = {
    id: ulid(nowOf(ctx)),
    kind: input.kind,
    value,
    reason: input.reason?.trim() || null,
    created_by: actorOf(ctx),
    created_at: nowOf(ctx),
  };
  writeTx(ctx.db, () => {
    const existing = findExclusionIdByValue(ctx.db, row.kind, row.value);
    if (existing) throw new AppError('Conflict', `${row.kind} ${row.value} is already excluded (exclusion ${existing})`);
    insertExclusion(ctx.db, row);
  });
  return toExclusion(ctx.db, row);
}

export function listExclusions(ctx: ServiceContext): ExclusionDto[] {
  return listExclusionRows(ctx.db).map((r) => toExclusion(ctx.db, r));
}

/** Lifts an exclusion: the sessions' data (if not purged) is collected and exported again. */
export function removeExclusion(ctx: ServiceContext, id: string): ExclusionDto {
  const row = getRow(ctx.db, id);
  const before = toExclusion(ctx.db, row);
  writeTx(ctx.db, () => deleteExclusionById(ctx.db, id));
  return before;
}

const COUNTED_TABLES = [
  'sessions',
  'conversation_turns',
  'conversation_contexts',
  'conversation_context_windows',
  'memory_gate_decisions',
  'write_guardian_audit',
  'rollbacks',
  'behavior_corrections',
  'dataset_samples',
  'file_snapshots',
  'guardian_log_lines',
  'dataset_feedback_signals',
  'session_aliases',
];

class Rollback extends Error {}

/**
 * Removes everything recorded for the exclusion's sessions: sessions, turns, contexts, decisions,
 * audits (and the rollbacks and corrections of those audits), dataset samples, the plugin's
 * audit-log lines joined to them, and snapshots only those rows referenced. Snapshots another
 * write still references stay: they are the memory file's history, not this conversation alone.
 * Irreversible, so it needs confirm; dryRun runs it inside a transaction that is rolled back,
 * which gives exact counts. The exclusion itself stays, so new data of the sessions stays excluded.
 */
export function purgeExclusion(ctx: ServiceContext, id: string, options: { confirm?: boolean; dryRun?: boolean } = {}): PurgeOutcome {
  const row = getRow(ctx.db, id);
  const exclusion = toExclusion(ctx.db, row);
  const dryRun = options.dryRun ?? false;
  if (!dryRun && !options.confirm) {
    throw new AppError('Invalid', `purge is irreversible: confirm it (--yes) or preview it (--dry-run)`);
  }
  const db = ctx.db;
  const sessionIds = sessionsMatching(db, row.kind, row.value);
  const counted = COUNTED_TABLES.filter((t) => tableExists(db, t));
  const count = () => Object.fromEntries(counted.map((t) => [t, countTableRows(db, t)]));
  let deleted: Record<string, number> = {};

  try {
    // Freed pages are zeroed, so purged text does not linger in the file.
    withSecureDelete(db, () =>
      writeTx(db, () => {
        const before = count();
        deleteSessionsAndTheirRows(db, sessionIds);
        const after = count();
        deleted = Object.fromEntries(counted.map((t) => [t, (before[t] ?? 0) - (after[t] ?? 0)]).filter(([, n]) => (n as number) > 0));
        if (dryRun) throw new Rollback();
      }),
    );
  } catch (e) {
    if (!(e instanceof Rollback)) throw e;
  }
  if (!dryRun) {
    reclaimFreePages(db);
    checkpointWal(db);
  }
  return { exclusion, sessionIds, deleted, dryRun };
}
