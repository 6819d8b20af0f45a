import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeTx, type DB } from '../db/connection';
import { reclaimFreePages } from '../db/maintenance';
import { AppError } from '../../shared/errors';
import { nowOf, type ServiceContext } from '../context';
import { exportsDir } from './archive';
import { findLatestArchive } from '../db/repositories/archives';
import { deleteRowsOlderThan } from '../db/repositories/retention';
import { countTableRows, tableExists } from '../db/repositories/schema';
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
  'sessions',
  'conversation_turns',
  'conversation_contexts',
  'conversation_context_windows',
  'memory_gate_decisions',
  'write_guardian_audit',
  'dataset_samples',
  'file_snapshots',
  'guardian_log_lines',
  'dataset_feedback_signals',
  'import_runs',
];

/** Remembers a finished backup, so retention knows up to when the data is safe elsewhere. */
export function recordBackup(db: DB, file: string, at: number): void {
  // through writeTx: a job worker writing meanwhile steps aside for it (writeGate.ts)
  writeTx(db, () => setState(db, LAST_BACKUP_KEY, { file, at }, at));
}

/** Up to when a copy of the data exists: the last backup still on disk, or the newest conversation archive. */
export function safeCopyUntil(db: DB, workspaceDir: string): number | null {
  const backup = getState<{ file: string; at: number }>(db, LAST_BACKUP_KEY);
  const backupAt = backup && fs.existsSync(backup.file) ? backup.at : null;
  const archive = tableExists(db, 'conversation_archives') ? findLatestArchive(db) : undefined;
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
  if (!options.confirm)
    throw new AppError('Invalid', 'prune is irreversible: preview it (dry run) and confirm it (--yes, or confirm with the preview token)');
  if (!options.previewToken && !options.scheduled) {
    throw new AppError('Invalid', 'previewToken: run a dry run first and pass the previewToken it returned with confirm');
  }
}
class Rollback extends Error {}

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
  const count = () => Object.fromEntries(counted.map((t) => [t, countTableRows(db, t)]));
  let deleted: Record<string, number> = {};
  let kept: Record<string, Record<string, number>> = {};

  try {
    writeTx(db, () => {
      const before = count();
      kept = deleteRowsOlderThan(db, cutoff);
      const after = count();
      deleted = Object.fromEntries(counted.map((t) => [t, (before[t] ?? 0) - (after[t] ?? 0)]).filter(([, n]) => (n as number) > 0));
      if (dryRun) throw new Rollback();
      if (options.previewToken && tokenFor(days, cutoff, deleted) !== options.previewToken) {
        throw new AppError('Conflict', 'the data changed since the preview: nothing was deleted; preview again');
      }
      if (needsForce && Object.keys(deleted).length && !options.force) {
        const since =
          safeUntil === null
            ? 'no backup or conversation archive exists'
            : `the last backup or archive holds data up to ${new Date(safeUntil).toISOString()}`;
        throw new AppError(
          'Conflict',
          `prune would delete data no copy holds (${since}): nothing was deleted; make a backup first (\`reflection backup\`) or force it`,
        );
      }
    });
  } catch (e) {
    if (!(e instanceof Rollback)) throw e;
  }
  let freedPages = 0;
  if (!dryRun && Object.keys(deleted).length) {
    freedPages = reclaimFreePages(db);
  }
  return {
    days,
    cutoff,
    dryRun,
    deleted,
    kept,
    freedPages,
    previewToken: tokenFor(days, cutoff, deleted),
    safeCopyUntil: safeUntil,
    needsForce: needsForce && Object.keys(deleted).length > 0,
  };
}
