import { ulid } from 'ulid';
import { writeTx, type DB } from '../db/connection';
import { AppError } from '../../shared/errors';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { deleteUnreferencedSnapshots, repairDanglingReferences, tableExists } from './fkRepair';

export const EXCLUSION_KINDS = ['session', 'target', 'account'] as const;
export type ExclusionKind = (typeof EXCLUSION_KINDS)[number];

export interface Exclusion {
  id: string;
  kind: ExclusionKind;
  value: string;
  reason: string | null;
  createdBy: string | null;
  createdAt: number;
  /** Sessions it matches now (new sessions of a target or account are matched as they appear). */
  sessions: number;
}

export interface AddExclusionInput {
  kind: ExclusionKind;
  value: string;
  reason?: string;
}

const MATCH_SQL: Record<ExclusionKind, string> = {
  session: 'SELECT id FROM sessions WHERE id = ?',
  target: "SELECT id FROM sessions WHERE channel_id || ':' || coalesce(conversation_target, '') = ?",
  account: 'SELECT id FROM sessions WHERE account_id = ?',
};

export function sessionsMatching(db: DB, kind: ExclusionKind, value: string): string[] {
  return db.prepare(MATCH_SQL[kind]).pluck().all(value) as string[];
}

interface ExclusionRow {
  id: string;
  kind: ExclusionKind;
  value: string;
  reason: string | null;
  created_by: string | null;
  created_at: number;
}

function toExclusion(db: DB, r: ExclusionRow): Exclusion {
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
  const row = db.prepare('SELECT * FROM exclusions WHERE id = ?').get(id) as ExclusionRow | undefined;
  if (!row) throw new AppError('NotFound', `exclusion ${id} not found (see \`reflection exclude list\`)`);
  return row;
}

/** Excludes a session, a channel target ("<channel>:<target>") or an account from collection and every export. */
export function addExclusion(ctx: ServiceContext, input: AddExclusionInput): Exclusion {
  if (!EXCLUSION_KINDS.includes(input.kind)) throw new AppError('Invalid', `kind: expected one of ${EXCLUSION_KINDS.join(', ')}`);
  let value = typeof input.value === 'string' ? input.value.trim() : '';
  if (!value) throw new AppError('Invalid', `value: the ${input.kind} to exclude is empty`);
  if (input.kind === 'target' && !value.includes(':')) {
    throw new AppError('Invalid', `target: expected "<channel>:<target>" (e.g. discord:channel:1478342210), got "${value}"`);
  }
  if (input.kind === 'session' && tableExists(ctx.db, 'session_aliases')) {
    // An OpenClaw session key (agent:main:...) names the same session as our canonical key.
    const canonical = ctx.db.prepare('SELECT session_id FROM session_aliases WHERE alias = ?').pluck().get(value) as string | undefined;
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
    const existing = ctx.db.prepare('SELECT id FROM exclusions WHERE kind = ? AND value = ?').pluck().get(row.kind, row.value) as string | undefined;
    if (existing) throw new AppError('Conflict', `${row.kind} ${row.value} is already excluded (exclusion ${existing})`);
    ctx.db
      .prepare('INSERT INTO exclusions (id, kind, value, reason, created_by, created_at) VALUES (@id, @kind, @value, @reason, @created_by, @created_at)')
      .run(row);
  });
  return toExclusion(ctx.db, row);
}

export function listExclusions(ctx: ServiceContext): Exclusion[] {
  const rows = ctx.db.prepare('SELECT * FROM exclusions ORDER BY created_at, id').all() as ExclusionRow[];
  return rows.map((r) => toExclusion(ctx.db, r));
}

/** Lifts an exclusion: the sessions' data (if not purged) is collected and exported again. */
export function removeExclusion(ctx: ServiceContext, id: string): Exclusion {
  const row = getRow(ctx.db, id);
  const before = toExclusion(ctx.db, row);
  writeTx(ctx.db, () => ctx.db.prepare('DELETE FROM exclusions WHERE id = ?').run(id));
  return before;
}

export interface PurgeResult {
  exclusion: Exclusion;
  sessionIds: string[];
  /** Rows removed per table (cascades and reference repairs included). */
  deleted: Record<string, number>;
  dryRun: boolean;
}

const COUNTED_TABLES = [
  'sessions',
  'conversation_turns',
  'conversation_contexts',
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
export function purgeExclusion(ctx: ServiceContext, id: string, options: { confirm?: boolean; dryRun?: boolean } = {}): PurgeResult {
  const row = getRow(ctx.db, id);
  const exclusion = toExclusion(ctx.db, row);
  const dryRun = options.dryRun ?? false;
  if (!dryRun && !options.confirm) {
    throw new AppError('Invalid', `purge is irreversible: confirm it (--yes) or preview it (--dry-run)`);
  }
  const db = ctx.db;
  const sessionIds = sessionsMatching(db, row.kind, row.value);
  const counted = COUNTED_TABLES.filter((t) => tableExists(db, t));
  const count = () => Object.fromEntries(counted.map((t) => [t, db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number]));
  let deleted: Record<string, number> = {};

  const secureDelete = db.pragma('secure_delete', { simple: true });
  db.pragma('secure_delete = ON'); // freed pages are zeroed, so purged text does not linger in the file
  try {
    writeTx(db, () => {
      const before = count();
      db.pragma('defer_foreign_keys = ON');
      db.exec(`
        CREATE TEMP TABLE IF NOT EXISTS purge_sessions (id TEXT PRIMARY KEY);
        CREATE TEMP TABLE IF NOT EXISTS purge_audits (id TEXT PRIMARY KEY);
        CREATE TEMP TABLE IF NOT EXISTS purge_snapshots (id TEXT PRIMARY KEY);
        DELETE FROM temp.purge_sessions; DELETE FROM temp.purge_audits; DELETE FROM temp.purge_snapshots;`);
      const addSession = db.prepare('INSERT OR IGNORE INTO temp.purge_sessions (id) VALUES (?)');
      for (const s of sessionIds) addSession.run(s);
      db.exec(`
        INSERT OR IGNORE INTO temp.purge_audits (id)
          SELECT a.id FROM write_guardian_audit a WHERE a.session_id IN (SELECT id FROM temp.purge_sessions)
          UNION SELECT a.id FROM write_guardian_audit a JOIN conversation_turns t ON t.id = a.turn_id
            WHERE t.session_id IN (SELECT id FROM temp.purge_sessions);
        INSERT OR IGNORE INTO temp.purge_snapshots (id)
          SELECT before_snapshot_id FROM write_guardian_audit WHERE id IN (SELECT id FROM temp.purge_audits) AND before_snapshot_id IS NOT NULL
          UNION SELECT after_snapshot_id FROM write_guardian_audit WHERE id IN (SELECT id FROM temp.purge_audits) AND after_snapshot_id IS NOT NULL
          UNION SELECT restored_snapshot_id FROM rollbacks WHERE audit_id IN (SELECT id FROM temp.purge_audits) AND restored_snapshot_id IS NOT NULL
          UNION SELECT backup_snapshot_id FROM rollbacks WHERE audit_id IN (SELECT id FROM temp.purge_audits) AND backup_snapshot_id IS NOT NULL;
        DELETE FROM dataset_samples
          WHERE session_id IN (SELECT id FROM temp.purge_sessions)
             OR audit_id IN (SELECT id FROM temp.purge_audits)
             OR correction_id IN (SELECT id FROM behavior_corrections WHERE audit_id IN (SELECT id FROM temp.purge_audits));
        DELETE FROM rollbacks WHERE audit_id IN (SELECT id FROM temp.purge_audits) OR rollback_audit_id IN (SELECT id FROM temp.purge_audits);
        DELETE FROM behavior_corrections WHERE audit_id IN (SELECT id FROM temp.purge_audits);
        DELETE FROM write_guardian_audit WHERE id IN (SELECT id FROM temp.purge_audits);
        DELETE FROM sessions WHERE id IN (SELECT id FROM temp.purge_sessions);`);
      if (tableExists(db, 'guardian_log_lines')) db.exec('DELETE FROM guardian_log_lines WHERE audit_id IN (SELECT id FROM temp.purge_audits)');
      if (tableExists(db, 'session_aliases')) db.exec('DELETE FROM session_aliases WHERE session_id IN (SELECT id FROM temp.purge_sessions)');
      repairDanglingReferences(db);
      deleteUnreferencedSnapshots(db, 'purge_snapshots');
      repairDanglingReferences(db);
      // FTS5 keeps deleted tokens in its segments until they are merged; merge now so no text remains.
      db.exec("INSERT INTO turns_fts(turns_fts) VALUES ('optimize'); INSERT INTO decisions_fts(decisions_fts) VALUES ('optimize');");
      const after = count();
      deleted = Object.fromEntries(counted.map((t) => [t, before[t] - after[t]]).filter(([, n]) => (n as number) > 0));
      if (dryRun) throw new Rollback();
    });
  } catch (e) {
    if (!(e instanceof Rollback)) throw e;
  } finally {
    db.pragma(`secure_delete = ${secureDelete ? 'ON' : 'OFF'}`);
  }
  if (!dryRun) {
    db.pragma('incremental_vacuum');
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
  return { exclusion, sessionIds, deleted, dryRun };
}
