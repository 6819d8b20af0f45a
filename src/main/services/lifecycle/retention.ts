import { writeTx, type DB } from '../../db/connection';
import { AppError } from '../../../shared/errors';
import { nowOf, type ServiceContext } from '../context';
import { deleteUnreferencedSnapshots, repairDanglingReferences, tableExists } from './fkRepair';
import { loadSettings } from './settings';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface PruneOptions {
  /** Age limit in days; default: storage.retentionDays from the workspace settings. */
  days?: number;
  dryRun?: boolean;
}

export interface PruneResult {
  days: number;
  cutoff: number;
  dryRun: boolean;
  /** Rows removed per table. */
  deleted: Record<string, number>;
  /** Rows older than the cutoff that were kept, per table, per reason. */
  kept: Record<string, Record<string, number>>;
  /** Pages given back to the file system by the incremental vacuum. */
  freedPages: number;
}

const APPROVED = "annotation_status IN ('approved', 'auto_approved')";

const COUNTED = [
  'sessions', 'conversation_turns', 'conversation_contexts', 'memory_gate_decisions', 'write_guardian_audit',
  'dataset_samples', 'file_snapshots', 'guardian_log_lines', 'dataset_feedback_signals', 'import_runs',
];

class Rollback extends Error {}

function markKept(db: DB, table: string, reason: string, idsSql: string, params: Record<string, unknown> = {}): void {
  db.prepare(`UPDATE temp.${table} SET keep = @reason WHERE keep IS NULL AND id IN (${idsSql})`).run({ reason, ...params });
}

/**
 * Deletes conversations, decisions and audits older than the retention limit. Everything an
 * approved dataset sample (the material of every export), a correction, a rollback or a pending
 * file operation still references is kept, and so is what those kept rows need (their decision,
 * turn, session, and the audits they point at). Snapshots are deleted only when nothing references
 * them any more. Afterwards the incremental vacuum gives the space back.
 */
export function pruneOldData(ctx: ServiceContext, options: PruneOptions = {}): PruneResult {
  const days = options.days ?? loadSettings(ctx.workspaceDir).settings.storage.retentionDays;
  if (days === undefined) throw new AppError('Invalid', 'days: no retention limit given and storage.retentionDays is not set');
  if (!Number.isFinite(days) || days <= 0) throw new AppError('Invalid', `days: expected a number of days above 0, got ${days}`);
  const db = ctx.db;
  const cutoff = nowOf(ctx) - Math.round(days * DAY_MS);
  const dryRun = options.dryRun ?? false;
  const counted = COUNTED.filter((t) => tableExists(db, t));
  const count = () => Object.fromEntries(counted.map((t) => [t, db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number]));
  let deleted: Record<string, number> = {};
  const kept: Record<string, Record<string, number>> = {};

  try {
    writeTx(db, () => {
      const before = count();
      db.pragma('defer_foreign_keys = ON');
      db.exec(`
        CREATE TEMP TABLE IF NOT EXISTS prune_audits (id TEXT PRIMARY KEY, keep TEXT);
        CREATE TEMP TABLE IF NOT EXISTS prune_decisions (id TEXT PRIMARY KEY, keep TEXT);
        CREATE TEMP TABLE IF NOT EXISTS prune_turns (id TEXT PRIMARY KEY, keep TEXT);
        CREATE TEMP TABLE IF NOT EXISTS prune_snapshots (id TEXT PRIMARY KEY);
        DELETE FROM temp.prune_audits; DELETE FROM temp.prune_decisions; DELETE FROM temp.prune_turns; DELETE FROM temp.prune_snapshots;`);
      const p = { cutoff };
      db.prepare('INSERT INTO temp.prune_audits (id) SELECT id FROM write_guardian_audit WHERE created_at < @cutoff').run(p);
      db.prepare('INSERT INTO temp.prune_decisions (id) SELECT id FROM memory_gate_decisions WHERE created_at < @cutoff').run(p);
      db.prepare('INSERT INTO temp.prune_turns (id) SELECT id FROM conversation_turns WHERE created_at < @cutoff').run(p);

      // Audits: what curators acted on stays.
      markKept(db, 'prune_audits', 'approved dataset sample', `SELECT audit_id FROM dataset_samples WHERE ${APPROVED}`);
      markKept(db, 'prune_audits', 'correction', 'SELECT audit_id FROM behavior_corrections UNION SELECT retry_audit_id FROM behavior_corrections');
      markKept(db, 'prune_audits', 'rollback', 'SELECT audit_id FROM rollbacks UNION SELECT rollback_audit_id FROM rollbacks');
      if (tableExists(db, 'file_operations')) markKept(db, 'prune_audits', 'pending file operation', "SELECT audit_id FROM file_operations WHERE state = 'planned'");
      // A surviving audit (a rollback's or retry's own write) keeps the audit it relates to, transitively.
      const relatedStmt = db.prepare(`UPDATE temp.prune_audits SET keep = 'related to a kept write' WHERE keep IS NULL AND id IN (
        SELECT a.related_audit_id FROM write_guardian_audit a
        WHERE a.related_audit_id IN (SELECT id FROM temp.prune_audits)
          AND a.id NOT IN (SELECT id FROM temp.prune_audits WHERE keep IS NULL))`);
      while (relatedStmt.run().changes > 0) { /* until no new audit is kept */ }

      const doomedAudits = 'SELECT id FROM temp.prune_audits WHERE keep IS NULL';
      markKept(db, 'prune_decisions', 'approved dataset sample', `SELECT decision_id FROM dataset_samples WHERE ${APPROVED}`);
      markKept(db, 'prune_decisions', 'referenced by a kept write',
        `SELECT decision_id FROM write_guardian_audit WHERE decision_id IN (SELECT id FROM temp.prune_decisions) AND id NOT IN (${doomedAudits})`);
      const doomedDecisions = 'SELECT id FROM temp.prune_decisions WHERE keep IS NULL';
      markKept(db, 'prune_turns', 'approved dataset sample', `SELECT turn_id FROM dataset_samples WHERE ${APPROVED}`);
      markKept(db, 'prune_turns', 'referenced by a kept decision or write',
        `SELECT turn_id FROM memory_gate_decisions WHERE turn_id IN (SELECT id FROM temp.prune_turns) AND id NOT IN (${doomedDecisions})
         UNION SELECT turn_id FROM write_guardian_audit WHERE turn_id IN (SELECT id FROM temp.prune_turns) AND id NOT IN (${doomedAudits})`);
      const doomedTurns = 'SELECT id FROM temp.prune_turns WHERE keep IS NULL';

      for (const [table, name] of [['prune_audits', 'write_guardian_audit'], ['prune_decisions', 'memory_gate_decisions'], ['prune_turns', 'conversation_turns']]) {
        const rows = db.prepare(`SELECT keep, count(*) AS n FROM temp.${table} WHERE keep IS NOT NULL GROUP BY keep`).all() as { keep: string; n: number }[];
        if (rows.length) kept[name] = Object.fromEntries(rows.map((r) => [r.keep, r.n]));
      }

      db.exec(`
        DELETE FROM dataset_samples WHERE NOT (${APPROVED}) AND (
          turn_id IN (${doomedTurns}) OR decision_id IN (${doomedDecisions}) OR audit_id IN (${doomedAudits}));
        INSERT OR IGNORE INTO temp.prune_snapshots (id)
          SELECT before_snapshot_id FROM write_guardian_audit WHERE id IN (${doomedAudits}) AND before_snapshot_id IS NOT NULL
          UNION SELECT after_snapshot_id FROM write_guardian_audit WHERE id IN (${doomedAudits}) AND after_snapshot_id IS NOT NULL;
        DELETE FROM write_guardian_audit WHERE id IN (${doomedAudits});
        DELETE FROM memory_gate_decisions WHERE id IN (${doomedDecisions});
        DELETE FROM conversation_turns WHERE id IN (${doomedTurns});`);
      if (tableExists(db, 'guardian_log_lines')) {
        db.exec(`DELETE FROM guardian_log_lines WHERE audit_id IN (${doomedAudits}) OR (audit_id IS NULL AND at < ${cutoff})`);
      }
      // Import run reports are a log of their own (live capture adds one per pass that reads something).
      if (tableExists(db, 'import_runs')) db.prepare('DELETE FROM import_runs WHERE finished_at < @cutoff').run(p);
      db.prepare(`DELETE FROM sessions WHERE last_activity_at < @cutoff
        AND NOT EXISTS (SELECT 1 FROM conversation_turns t WHERE t.session_id = sessions.id)
        AND NOT EXISTS (SELECT 1 FROM memory_gate_decisions d WHERE d.session_id = sessions.id)
        AND NOT EXISTS (SELECT 1 FROM write_guardian_audit a WHERE a.session_id = sessions.id)
        AND NOT EXISTS (SELECT 1 FROM dataset_samples s WHERE s.session_id = sessions.id)`).run(p);
      repairDanglingReferences(db);
      const candidates = db.prepare('SELECT count(*) FROM temp.prune_snapshots').pluck().get() as number;
      const removed = deleteUnreferencedSnapshots(db, 'prune_snapshots');
      if (candidates > removed) kept.file_snapshots = { 'still referenced': candidates - removed };
      repairDanglingReferences(db);
      const after = count();
      deleted = Object.fromEntries(counted.map((t) => [t, before[t] - after[t]]).filter(([, n]) => (n as number) > 0));
      if (dryRun) throw new Rollback();
    });
  } catch (e) {
    if (!(e instanceof Rollback)) throw e;
  }
  let freedPages = 0;
  if (!dryRun && Object.keys(deleted).length) {
    const freeBefore = db.pragma('freelist_count', { simple: true }) as number;
    db.pragma('incremental_vacuum');
    freedPages = Math.max(0, freeBefore - (db.pragma('freelist_count', { simple: true }) as number));
  }
  return { days, cutoff, dryRun, deleted, kept, freedPages };
}
