// Opt-out: the exclusions table (a session, a channel target or an account), the sessions each
// matches, and the purge that removes everything recorded for those sessions.
import type { ExclusionKind } from '../../../shared/contract';
import type { DB } from '../connection';
import { stmt } from '../statements';
import { deleteUnreferencedSnapshots, repairDanglingReferences, tableExists } from './schema';

export type { ExclusionKind };

export interface ExclusionRow {
  id: string;
  kind: ExclusionKind;
  value: string;
  reason: string | null;
  created_by: string | null;
  created_at: number;
}

const MATCH_SQL: Record<ExclusionKind, string> = {
  session: 'SELECT id FROM sessions WHERE id = ?',
  target: "SELECT id FROM sessions WHERE channel_id || ':' || coalesce(conversation_target, '') = ?",
  account: 'SELECT id FROM sessions WHERE account_id = ?',
};

export function listSessionIdsMatching(db: DB, kind: ExclusionKind, value: string): string[] {
  return stmt(db, MATCH_SQL[kind]).pluck().all(value) as string[];
}

export function findExclusionById(db: DB, id: string): ExclusionRow | undefined {
  return stmt<ExclusionRow>(db, 'SELECT * FROM exclusions WHERE id = ?').get(id);
}

export function findExclusionIdByValue(db: DB, kind: ExclusionKind, value: string): string | undefined {
  return stmt(db, 'SELECT id FROM exclusions WHERE kind = ? AND value = ?').pluck().get(kind, value) as string | undefined;
}

export function insertExclusion(db: DB, row: ExclusionRow): void {
  stmt(
    db,
    'INSERT INTO exclusions (id, kind, value, reason, created_by, created_at) VALUES (@id, @kind, @value, @reason, @created_by, @created_at)',
  ).run(row);
}

export function listExclusionRows(db: DB): ExclusionRow[] {
  return stmt<ExclusionRow>(db, 'SELECT * FROM exclusions ORDER BY created_at, id').all();
}

export function deleteExclusionById(db: DB, id: string): void {
  stmt(db, 'DELETE FROM exclusions WHERE id = ?').run(id);
}

/** The canonical session an OpenClaw session key (agent:main:...) names, when aliases are recorded. */
export function findSessionIdByAlias(db: DB, alias: string): string | undefined {
  if (!tableExists(db, 'session_aliases')) return undefined;
  return stmt(db, 'SELECT session_id FROM session_aliases WHERE alias = ?').pluck().get(alias) as string | undefined;
}

/**
 * Inside the caller's write transaction, with deferred foreign keys: deletes the sessions and every
 * row recorded for them (audits with their rollbacks and corrections, samples, log lines, aliases),
 * then the snapshots nothing references any more, and merges the full-text indexes so no text remains.
 */
export function deleteSessionsAndTheirRows(db: DB, sessionIds: string[]): void {
  db.pragma('defer_foreign_keys = ON');
  db.exec(`
        CREATE TEMP TABLE IF NOT EXISTS purge_sessions (id TEXT PRIMARY KEY);
        CREATE TEMP TABLE IF NOT EXISTS purge_audits (id TEXT PRIMARY KEY);
        CREATE TEMP TABLE IF NOT EXISTS purge_snapshots (id TEXT PRIMARY KEY);
        DELETE FROM temp.purge_sessions; DELETE FROM temp.purge_audits; DELETE FROM temp.purge_snapshots;`);
  const addSession = stmt(db, 'INSERT OR IGNORE INTO temp.purge_sessions (id) VALUES (?)');
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
}
