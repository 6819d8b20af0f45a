// Retention's deletes: old conversations, decisions and audits, minus everything a curator's
// judgement, a correction, a rollback or a pending file operation still needs (the rules are the
// service's, in lifecycle/retention; the statements are here). Runs with deferred foreign keys.
import type { DB } from '../connection';
import { stmt } from '../statements';
import { deleteUnreferencedSnapshots, repairDanglingReferences, tableExists } from './schema';

/**
 * Samples that carry a curator's judgement: any status but pending, a note, a reviewer, or any
 * review event (edits, PII decisions, undone actions included). Only pending, untouched samples may go.
 */
function curatedSamplesSql(db: DB): string {
  const parts = [
    "annotation_status <> 'pending'",
    'annotated_by IS NOT NULL',
    "coalesce(annotation_notes, '') <> ''",
    'id IN (SELECT sample_id FROM dataset_annotation_events)',
  ];
  if (tableExists(db, 'pii_value_decision_samples')) parts.push('id IN (SELECT sample_id FROM pii_value_decision_samples)');
  return `SELECT id FROM dataset_samples WHERE ${parts.join(' OR ')}`;
}


function markKept(db: DB, table: string, reason: string, idsSql: string, params: Record<string, unknown> = {}): void {
  stmt(db, `UPDATE temp.${table} SET keep = @reason WHERE keep IS NULL AND id IN (${idsSql})`).run({ reason, ...params });
}

/**
 * Retention's delete, inside the caller's write transaction: marks in temp tables what stays and why
 * (see the service), deletes the rest, and returns the kept counts per table and reason.
 */
export function deleteRowsOlderThan(db: DB, cutoff: number): Record<string, Record<string, number>> {
  const kept: Record<string, Record<string, number>> = {};
  db.pragma('defer_foreign_keys = ON');
  db.exec(`
    CREATE TEMP TABLE IF NOT EXISTS prune_audits (id TEXT PRIMARY KEY, keep TEXT);
    CREATE TEMP TABLE IF NOT EXISTS prune_decisions (id TEXT PRIMARY KEY, keep TEXT);
    CREATE TEMP TABLE IF NOT EXISTS prune_turns (id TEXT PRIMARY KEY, keep TEXT);
    CREATE TEMP TABLE IF NOT EXISTS prune_snapshots (id TEXT PRIMARY KEY);
    CREATE TEMP TABLE IF NOT EXISTS prune_curated (id TEXT PRIMARY KEY);
    DELETE FROM temp.prune_audits; DELETE FROM temp.prune_decisions; DELETE FROM temp.prune_turns;
    DELETE FROM temp.prune_snapshots; DELETE FROM temp.prune_curated;`);
  const p = { cutoff };
  db.exec(`INSERT INTO temp.prune_curated (id) ${curatedSamplesSql(db)}`);
  const curated = 'dataset_samples WHERE id IN (SELECT id FROM temp.prune_curated)';
  stmt(db, 'INSERT INTO temp.prune_audits (id) SELECT id FROM write_guardian_audit WHERE created_at < @cutoff').run(p);
  stmt(db, 'INSERT INTO temp.prune_decisions (id) SELECT id FROM memory_gate_decisions WHERE created_at < @cutoff').run(p);
  stmt(db, 'INSERT INTO temp.prune_turns (id) SELECT id FROM conversation_turns WHERE created_at < @cutoff').run(p);

  // Audits: what curators acted on stays.
  markKept(db, 'prune_audits', 'curated dataset sample', `SELECT audit_id FROM ${curated}`);
  markKept(db, 'prune_audits', 'correction', 'SELECT audit_id FROM behavior_corrections UNION SELECT retry_audit_id FROM behavior_corrections');
  markKept(db, 'prune_audits', 'rollback', 'SELECT audit_id FROM rollbacks UNION SELECT rollback_audit_id FROM rollbacks');
  if (tableExists(db, 'file_operations')) markKept(db, 'prune_audits', 'pending file operation', "SELECT audit_id FROM file_operations WHERE state = 'planned'");
  // A surviving audit (a rollback's or retry's own write) keeps the audit it relates to, transitively.
  const relatedStmt = stmt(db, `UPDATE temp.prune_audits SET keep = 'related to a kept write' WHERE keep IS NULL AND id IN (
    SELECT a.related_audit_id FROM write_guardian_audit a
    WHERE a.related_audit_id IN (SELECT id FROM temp.prune_audits)
      AND a.id NOT IN (SELECT id FROM temp.prune_audits WHERE keep IS NULL))`);
  while (relatedStmt.run().changes > 0) { /* until no new audit is kept */ }

  const doomedAudits = 'SELECT id FROM temp.prune_audits WHERE keep IS NULL';
  markKept(db, 'prune_decisions', 'curated dataset sample', `SELECT decision_id FROM ${curated}`);
  markKept(db, 'prune_decisions', 'referenced by a kept write',
    `SELECT decision_id FROM write_guardian_audit WHERE decision_id IN (SELECT id FROM temp.prune_decisions) AND id NOT IN (${doomedAudits})`);
  const doomedDecisions = 'SELECT id FROM temp.prune_decisions WHERE keep IS NULL';
  markKept(db, 'prune_turns', 'curated dataset sample', `SELECT turn_id FROM ${curated}`);
  markKept(db, 'prune_turns', 'referenced by a kept decision or write',
    `SELECT turn_id FROM memory_gate_decisions WHERE turn_id IN (SELECT id FROM temp.prune_turns) AND id NOT IN (${doomedDecisions})
     UNION SELECT turn_id FROM write_guardian_audit WHERE turn_id IN (SELECT id FROM temp.prune_turns) AND id NOT IN (${doomedAudits})`);
  const doomedTurns = 'SELECT id FROM temp.prune_turns WHERE keep IS NULL';

  for (const [table, name] of [['prune_audits', 'write_guardian_audit'], ['prune_decisions', 'memory_gate_decisions'], ['prune_turns', 'conversation_turns']] as const) {
    const rows = stmt<{ keep: string; n: number }>(db, `SELECT keep, count(*) AS n FROM temp.${table} WHERE keep IS NOT NULL GROUP BY keep`).all();
    if (rows.length) kept[name] = Object.fromEntries(rows.map((r) => [r.keep, r.n]));
  }

  db.exec(`
    DELETE FROM dataset_samples WHERE id NOT IN (SELECT id FROM temp.prune_curated) AND (
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
  if (tableExists(db, 'import_runs')) stmt(db, 'DELETE FROM import_runs WHERE finished_at < @cutoff').run(p);
  stmt(db, `DELETE FROM sessions WHERE last_activity_at < @cutoff
    AND NOT EXISTS (SELECT 1 FROM conversation_turns t WHERE t.session_id = sessions.id)
    AND NOT EXISTS (SELECT 1 FROM memory_gate_decisions d WHERE d.session_id = sessions.id)
    AND NOT EXISTS (SELECT 1 FROM write_guardian_audit a WHERE a.session_id = sessions.id)
    AND NOT EXISTS (SELECT 1 FROM dataset_samples s WHERE s.session_id = sessions.id)`).run(p);
  repairDanglingReferences(db);
  const candidates = stmt(db, 'SELECT count(*) FROM temp.prune_snapshots').pluck().get() as number;
  const removed = deleteUnreferencedSnapshots(db, 'prune_snapshots');
  if (candidates > removed) kept.file_snapshots = { 'still referenced': candidates - removed };
  repairDanglingReferences(db);
  return kept;
}

