import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeTx, type DB } from '../db/connection';
import { AppError } from '../../shared/errors';
import { nowOf, type ServiceContext } from '../context';
import { exportsDir } from './archive';
import { deleteUnreferencedSnapshots, repairDanglingReferences, tableExists } from './fkRepair';
import { loadSettings, MIN_RETENTION_DAYS } from './settings';

export { MIN_RETENTION_DAYS };
import { getState, setState } from './state';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A preview token is honoured this long after its dry run. */
export const PREVIEW_VALID_MS = 15 * 60 * 1000;
const LAST_BACKUP_KEY = 'backup.last';

export interface PruneOptions {
  /** Age limit in whole days (at least MIN_RETENTION_DAYS); default: storage.retentionDays from the workspace settings. */
  days?: number;
  dryRun?: boolean;
  /** A real run is irreversible: it needs confirm and the previewToken of a dry run (scheduled runs excepted). */
  confirm?: boolean;
  previewToken?: string;
  /** Delete even data that no backup or conversation archive holds yet. */
  force?: boolean;
  /** The daily run of storage.retentionDays: the setting is the confirmation, so no preview token. */
  scheduled?: boolean;
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
  /** Pass it with confirm to delete exactly what this dry run listed (valid PREVIEW_VALID_MS). */
  previewToken: string;
  /** Newest time up to which a backup or conversation archive holds the data; null when none does. */
  safeCopyUntil: number | null;
  /** True when the deletion reaches past safeCopyUntil: a real run then needs force. */
  needsForce: boolean;
}

const COUNTED = [
  'sessions', 'conversation_turns', 'conversation_contexts', 'memory_gate_decisions', 'write_guardian_audit',
  'dataset_samples', 'file_snapshots', 'guardian_log_lines', 'dataset_feedback_signals', 'import_runs',
];

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

/** Remembers a finished backup, so retention knows up to when the data is safe elsewhere. */
export function recordBackup(db: DB, file: string, at: number): void {
  setState(db, LAST_BACKUP_KEY, { file, at }, at);
}

/** Up to when a copy of the data exists: the last backup still on disk, or the newest conversation archive. */
export function safeCopyUntil(db: DB, workspaceDir: string): number | null {
  const backup = getState<{ file: string; at: number }>(db, LAST_BACKUP_KEY);
  const backupAt = backup && fs.existsSync(backup.file) ? backup.at : null;
  const archive = tableExists(db, 'conversation_archives')
    ? (db.prepare('SELECT file_name AS file, until FROM conversation_archives ORDER BY until DESC LIMIT 1').get() as { file: string; until: number | null } | undefined)
    : undefined;
  // Scheduled archives record a bare name and are removed by their own retention: count only a file still there.
  const archivedUntil = archive && fs.existsSync(path.resolve(exportsDir(workspaceDir), archive.file)) ? archive.until : null;
  const times = [backupAt, archivedUntil].filter((t): t is number => typeof t === 'number');
  return times.length ? Math.max(...times) : null;
}

function tokenFor(days: number, cutoff: number, deleted: Record<string, number>): string {
  const digest = crypto.createHash('sha256').update(JSON.stringify({ days, cutoff, deleted })).digest('base64url').slice(0, 24);
  return `${cutoff}.${digest}`;
}

/** The cutoff a preview token was made for; refuses a malformed or expired one. */
function cutoffOfToken(token: string, days: number, now: number): number {
  const cutoff = Number(token.split('.')[0]);
  if (!/^\d+\.[\w-]{24}$/.test(token) || !Number.isSafeInteger(cutoff)) {
    throw new AppError('Invalid', 'previewToken: not a token from a retention dry run');
  }
  const age = now - (cutoff + days * DAY_MS);
  if (age < 0 || age > PREVIEW_VALID_MS) {
    throw new AppError('Conflict', 'previewToken: the preview is older than 15 minutes or was made for other days; preview again');
  }
  return cutoff;
}

/** Whole days, at least the minimum, from the option or storage.retentionDays. */
function retentionDays(ctx: ServiceContext, days: number | undefined): number {
  const value = days ?? loadSettings(ctx.workspaceDir).settings.storage.retentionDays;
  if (value === undefined) throw new AppError('Invalid', 'days: no retention limit given and storage.retentionDays is not set');
  if (!Number.isInteger(value) || value < MIN_RETENTION_DAYS) {
    throw new AppError('Invalid', `days: expected a whole number of days, at least ${MIN_RETENTION_DAYS}, got ${value}`);
  }
  return value;
}

function checkConfirmed(options: PruneOptions): void {
  if (options.dryRun) return;
  if (!options.confirm) throw new AppError('Invalid', 'prune is irreversible: preview it (dry run) and confirm it (--yes, or confirm with the preview token)');
  if (!options.previewToken && !options.scheduled) {
    throw new AppError('Invalid', 'previewToken: run a dry run first and pass the previewToken it returned with confirm');
  }
}
class Rollback extends Error {}

function markKept(db: DB, table: string, reason: string, idsSql: string, params: Record<string, unknown> = {}): void {
  db.prepare(`UPDATE temp.${table} SET keep = @reason WHERE keep IS NULL AND id IN (${idsSql})`).run({ reason, ...params });
}

/** Inside the write transaction: marks what stays and why, deletes the rest, returns the kept counts. */
function deleteOldRows(db: DB, cutoff: number): Record<string, Record<string, number>> {
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
  db.prepare('INSERT INTO temp.prune_audits (id) SELECT id FROM write_guardian_audit WHERE created_at < @cutoff').run(p);
  db.prepare('INSERT INTO temp.prune_decisions (id) SELECT id FROM memory_gate_decisions WHERE created_at < @cutoff').run(p);
  db.prepare('INSERT INTO temp.prune_turns (id) SELECT id FROM conversation_turns WHERE created_at < @cutoff').run(p);

  // Audits: what curators acted on stays.
  markKept(db, 'prune_audits', 'curated dataset sample', `SELECT audit_id FROM ${curated}`);
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
  markKept(db, 'prune_decisions', 'curated dataset sample', `SELECT decision_id FROM ${curated}`);
  markKept(db, 'prune_decisions', 'referenced by a kept write',
    `SELECT decision_id FROM write_guardian_audit WHERE decision_id IN (SELECT id FROM temp.prune_decisions) AND id NOT IN (${doomedAudits})`);
  const doomedDecisions = 'SELECT id FROM temp.prune_decisions WHERE keep IS NULL';
  markKept(db, 'prune_turns', 'curated dataset sample', `SELECT turn_id FROM ${curated}`);
  markKept(db, 'prune_turns', 'referenced by a kept decision or write',
    `SELECT turn_id FROM memory_gate_decisions WHERE turn_id IN (SELECT id FROM temp.prune_turns) AND id NOT IN (${doomedDecisions})
     UNION SELECT turn_id FROM write_guardian_audit WHERE turn_id IN (SELECT id FROM temp.prune_turns) AND id NOT IN (${doomedAudits})`);
  const doomedTurns = 'SELECT id FROM temp.prune_turns WHERE keep IS NULL';

  for (const [table, name] of [['prune_audits', 'write_guardian_audit'], ['prune_decisions', 'memory_gate_decisions'], ['prune_turns', 'conversation_turns']]) {
    const rows = db.prepare(`SELECT keep, count(*) AS n FROM temp.${table} WHERE keep IS NOT NULL GROUP BY keep`).all() as { keep: string; n: number }[];
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
  return kept;
}

/**
 * Deletes conversations, decisions and audits older than the retention limit. Everything a
 * curated dataset sample (any judgement: approved, rejected, flagged, edited, noted, PII decided),
 * a correction, a rollback or a pending file operation still references is kept, and so is what
 * those kept rows need (their decision, turn, session, and the audits they point at); only pending,
 * untouched samples of old rows go. Snapshots are deleted only when nothing references them any more.
 * Irreversible: a real run needs confirm plus the token of a dry run, and deletes exactly what that
 * dry run listed (same cutoff, same counts, or it is refused). Data no backup or conversation archive
 * holds yet is deleted only with force. Afterwards the incremental vacuum gives the space back.
 */
export function pruneOldData(ctx: ServiceContext, options: PruneOptions = {}): PruneResult {
  const days = retentionDays(ctx, options.days);
  checkConfirmed(options);
  const db = ctx.db;
  const now = nowOf(ctx);
  const cutoff = options.previewToken && !options.dryRun ? cutoffOfToken(options.previewToken, days, now) : now - days * DAY_MS;
  const dryRun = options.dryRun ?? false;
  const safeUntil = safeCopyUntil(db, ctx.workspaceDir);
  const needsForce = safeUntil === null || cutoff > safeUntil;
  const counted = COUNTED.filter((t) => tableExists(db, t));
  const count = () => Object.fromEntries(counted.map((t) => [t, db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number]));
  let deleted: Record<string, number> = {};
  let kept: Record<string, Record<string, number>> = {};

  try {
    writeTx(db, () => {
      const before = count();
      kept = deleteOldRows(db, cutoff);
      const after = count();
      deleted = Object.fromEntries(counted.map((t) => [t, before[t] - after[t]]).filter(([, n]) => (n as number) > 0));
      if (dryRun) throw new Rollback();
      if (options.previewToken && tokenFor(days, cutoff, deleted) !== options.previewToken) {
        throw new AppError('Conflict', 'the data changed since the preview: nothing was deleted; preview again');
      }
      if (needsForce && Object.keys(deleted).length && !options.force) {
        const since = safeUntil === null ? 'no backup or conversation archive exists' : `the last backup or archive holds data up to ${new Date(safeUntil).toISOString()}`;
        throw new AppError('Conflict', `prune would delete data no copy holds (${since}): nothing was deleted; make a backup first (\`reflection backup\`) or force it`);
      }
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
  return { days, cutoff, dryRun, deleted, kept, freedPages, previewToken: tokenFor(days, cutoff, deleted), safeCopyUntil: safeUntil, needsForce: needsForce && Object.keys(deleted).length > 0 };
}
