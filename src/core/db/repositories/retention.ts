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

const CURATED = 'dataset_samples WHERE id IN (SELECT id FROM temp.prune_curated)';
const DOOMED_AUDITS = 'SELECT id FROM temp.prune_audits WHERE keep IS NULL';
const DOOMED_DECISIONS = 'SELECT id FROM temp.prune_decisions WHERE keep IS NULL';
const DOOMED_TURNS = 'SELECT id FROM temp.prune_turns WHERE keep IS NULL';

/** Fills the temp tables: every audit, decision and turn older than the cutoff, and the curated samples. */
function collectPruneCandidates(db: DB, cutoff: number): void {
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
  stmt(db, 'INSERT INTO temp.prune_audits (id) SELECT id FROM write_guardian_audit WHERE created_at < @cutoff').run(p);
  stmt(db, 'INSERT INTO temp.prune_decisions (id) SELECT id FROM memory_gate_decisions WHERE created_at < @cutoff').run(p);
  stmt(db, 'INSERT INTO temp.prune_turns (id) SELECT id FROM conversation_turns WHERE created_at < @cutoff').run(p);
}

/** Marks the candidates that stay, with the reason; returns the kept counts per table and reason. */
function markKeptRows(db: DB): Record<string, Record<string, number>> {
  // Audits: what curators acted on stays.
  markKept(db, 'prune_audits', 'curated dataset sample', `SELECT audit_id FROM ${CURATED}`);
  markKept(
    db,
    'prune_audits',
    'correction',
    'SELECT audit_id FROM behavior_corrections UNION SELECT retry_audit_id FROM behavior_corrections',
  );
  markKept(db, 'prune_audits', 'rollback', 'SELECT audit_id FROM rollbacks UNION SELECT rollback_audit_id FROM rollbacks');
  if (tableExists(db, 'file_operations'))
    markKept(db, 'prune_audits', 'pending file operation', "SELECT audit_id FROM file_operations WHERE state = 'planned'");
  // A surviving audit (a rollback's or retry's own write) keeps the audit it relates to, transitively.
  const related = stmt(
    db,
    `UPDATE temp.prune_audits SET keep = 'related to a kept write' WHERE keep IS NULL AND id IN (
    SELECT a.related_audit_id FROM write_guardian_audit a
    WHERE a.related_audit_id IN (SELECT id FROM temp.prune_audits)
      AND a.id NOT IN (SELECT id FROM temp.prune_audits WHERE keep IS NULL))`,
  );
  while (related.run().changes > 0) {
    /* until no new audit is kept */
  }
  markKept(db, 'prune_decisions', 'curated dataset sample', `SELECT decision_id FROM ${CURATED}`);
  markKept(
    db,
    'prune_decisions',
    'referenced by a kept write',
    `SELECT decision_id FROM write_guardian_audit WHERE decision_id IN (SELECT id FROM temp.prune_decisions) AND id NOT IN (${DOOMED_AUDITS})`,
  );
  markKept(db, 'prune_turns', 'curated dataset sample', `SELECT turn_id FROM ${CURATED}`);
  markKept(
    db,
    'prune_turns',
    'referenced by a kept decision or write',
    `SELECT turn_id FROM memory_gate_decisions WHERE turn_id IN (SELECT id FROM temp.prune_turns) AND id NOT IN (${DOOMED_DECISIONS})
     UNION SELECT turn_id FROM write_guardian_audit WHERE turn_id IN (SELECT id FROM temp.prune_turns) AND id NOT IN (${DOOMED_AUDITS})`,
  );
  const kept: Record<string, Record<string, number>> = {};
  for (const [table, name] of [
    ['prune_audits', 'write_guardian_audit'],
    ['prune_decisions', 'memory_gate_decisions'],
    ['prune_turns', 'conversation_turns'],
  ] as const) {
    const rows = stmt<{ keep: string; n: number }>(
      db,
      `SELECT keep, count(*) AS n FROM temp.${table} WHERE keep IS NOT NULL GROUP BY keep`,
    ).all();
    if (rows.length) kept[name] = Object.fromEntries(rows.map((r) => [r.keep, r.n]));
  }
  return kept;
}

/** Deletes the unmarked candidates, their uncurated samples, old log lines and run reports, and sessions left empty. */
function deleteDoomedRows(db: DB, cutoff: number): void {
  db.exec(`
    DELETE FROM dataset_samples WHERE id NOT IN (SELECT id FROM temp.prune_curated) AND (
      turn_id IN (${DOOMED_TURNS}) OR decision_id IN (${DOOMED_DECISIONS}) OR audit_id IN (${DOOMED_AUDITS}));
    INSERT OR IGNORE INTO temp.prune_snapshots (id)
      SELECT before_snapshot_id FROM write_guardian_audit WHERE id IN (${DOOMED_AUDITS}) AND before_snapshot_id IS NOT NULL
      UNION SELECT after_snapshot_id FROM write_guardian_audit WHERE id IN (${DOOMED_AUDITS}) AND after_snapshot_id IS NOT NULL;
    DELETE FROM write_guardian_audit WHERE id IN (${DOOMED_AUDITS});
    DELETE FROM memory_gate_decisions WHERE id IN (${DOOMED_DECISIONS});
    DELETE FROM conversation_turns WHERE id IN (${DOOMED_TURNS});`);
  const p = { cutoff };
  if (tableExists(db, 'guardian_log_lines')) {
    stmt(db, `DELETE FROM guardian_log_lines WHERE audit_id IN (${DOOMED_AUDITS}) OR (audit_id IS NULL AND at < @cutoff)`).run(p);
  }
  // Import run reports are a log of their own (live capture adds one per pass that reads something).
  if (tableExists(db, 'import_runs')) stmt(db, 'DELETE FROM import_runs WHERE finished_at < @cutoff').run(p);
  stmt(
    db,
    `DELETE FROM sessions WHERE last_activity_at < @cutoff
    AND NOT EXISTS (SELECT 1 FROM conversation_turns t WHERE t.session_id = sessions.id)
    AND NOT EXISTS (SELECT 1 FROM memory_gate_decisions d WHERE d.session_id = sessions.id)
    AND NOT EXISTS (SELECT 1 FROM write_guardian_audit a WHERE a.session_id = sessions.id)
    AND NOT EXISTS (SELECT 1 FROM dataset_samples s WHERE s.session_id = sessions.id)`,
  ).run(p);
}

/**
 * Retention's delete, inside the caller's write transaction: marks in temp tables what stays and why
 * (see the service), deletes the rest, and returns the kept counts per table and reason.
 */
export function deleteRowsOlderThan(db: DB, cutoff: number): Record<string, Record<string, number>> {
  db.pragma('defer_foreign_keys = ON');
  collectPruneCandidates(db, cutoff);
  const kept = markKeptRows(db);
  deleteDoomedRows(db, cutoff);
  repairDanglingReferences(db);
  const candidates = stmt(db, 'SELECT count(*) FROM temp.prune_snapshots').pluck().get() as number;
  const removed = deleteUnreferencedSnapshots(db, 'prune_snapshots');
  if (candidates > removed) kept.file_snapshots = { 'still referenced': candidates - removed };
  repairDanglingReferences(db);
  return kept;
}
