// Rolling back recorded writes, one or a whole session (newest first).
//
// If the file still holds exactly what the write left, the before-snapshot is restored (a write
// that created the file is undone by deleting it). If the file changed since, only this write's
// change is reversed, keeping later writes; when that overlaps later edits the rollback is refused
// with the conflict, unless --force, which restores the before-snapshot anyway. Every rollback keeps
// a backup snapshot of the file, adds a rollbacks row, sets the audit to rolled_back, and records
// its own write as a source='rollback' audit. Rolling back that audit re-applies the original change
// as a new rollback audit (the original stays rolled_back: history is never rewritten).
import { ulid } from 'ulid';
import type { LineChanges, MemoryFileName } from '../../shared/domain';
import type { RollbackStatus } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import type { LockOptions } from '../files/memoryFiles';
import { readMemoryFile } from '../files/memoryFiles';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { loadSettings } from '../lifecycle/settings';
import { diffFile } from '../text/diff';
import { executeFileOperation, withFileOperation } from './operations';
import { freeTextView, planManagedRollback, withManagedStore, type ManagedPlan } from './managed';
import { describeConflict, reverseApply, type ConflictRegion } from './reverse';
import { parseTime } from '../text/time';
import { getAuditRow, snapshotContent, type AuditDbRow } from './rows';
import { findRollbackOfAudit, listSessionWritesToRollBack } from '../db/repositories/rollbacks';
import { sessionExists } from '../db/repositories/sessions';

export interface RollbackInput {
  auditId: string;
  reason?: string;
  by?: string;
  dryRun?: boolean;
  force?: boolean;
  lock?: LockOptions;
}

export type RollbackMode = 'restore' | 'reverse_patch' | 'force';

/** What a rollback does (or would do): plain data for the CLI and the UI's preview. */
export interface RollbackPreview {
  auditId: string;
  targetFile: MemoryFileName;
  mode: RollbackMode | null;
  currentContent: string | null;
  /** The file after the rollback; null means the file is deleted. */
  resultContent: string | null;
  /** Unified diff from the current file to the result. */
  diff: string;
  lines: LineChanges;
  deletesFile: boolean;
  /** Set when the write cannot be undone on its own; resultContent is then the current content. */
  conflict: { message: string; regions: ConflictRegion[] } | null;
  /** When the rolled-back audit was itself a rollback: the audit whose change comes back. */
  reappliesAuditId: string | null;
  /** The memory-management plugin's fact store changes with the file (its managed region). */
  managed?: ManagedPlan | null;
}

/** A conflict is an answer, not a failure: the caller reads `status` and shows `conflict`. */
export interface RollbackResult extends RollbackPreview {
  status: RollbackStatus;
  dryRun: boolean;
  rollbackId: string | null;
  rollbackAuditId: string | null;
  backupSnapshotId: string | null;
}

/** The result of a rollback that wrote nothing: a preview, or a refusal when the write conflicts. */
const unapplied = (preview: RollbackPreview, dryRun: boolean): RollbackResult => ({
  ...preview,
  status: preview.conflict || !preview.mode ? 'conflict' : 'preview',
  dryRun,
  rollbackId: null,
  rollbackAuditId: null,
  backupSnapshotId: null,
});

function assertRollbackable(db: ServiceContext['db'], audit: AuditDbRow): void {
  if (audit.status === 'rolled_back') {
    const found = findRollbackOfAudit(db, audit.id);
    const rb = found && { by: found.rolledBackBy, at: found.rolledBackAt, rid: found.rollbackAuditId };
    const when = rb ? ` on ${new Date(rb.at).toISOString()} by ${rb.by}` : '';
    const hint = rb?.rid ? `; to undo that rollback, roll back its own audit ${rb.rid}` : '';
    throw new AppError('Conflict', `audit ${audit.id} was already rolled back${when}${hint}`);
  }
  if (audit.status !== 'written') {
    throw new AppError(
      'Invalid',
      `audit ${audit.id} has status ${audit.status}: nothing was written to ${audit.target_file}, so there is nothing to roll back`,
    );
  }
  // A diff is only recorded when both sides are known; without it, both snapshots must exist, since a
  // missing before-snapshot would otherwise read as "the write created the file" and delete it.
  if (audit.diff === null && (audit.before_snapshot_id === null || audit.after_snapshot_id === null)) {
    throw new AppError(
      'Invalid',
      `audit ${audit.id} was recorded without the file's content before and after the write (e.g. imported from a log), so it cannot be undone safely`,
    );
  }
}

function assertRollbackEnabled(workspaceDir: string): void {
  if (loadSettings(workspaceDir).settings.writeGuardianAuditing.enableRollback === false) {
    throw new AppError(
      'Invalid',
      'rollback is switched off for this workspace (writeGuardianAuditing.enableRollback in .openclaw-reflection/workbench.json)',
    );
  }
}

/** Works out the rollback of one audit against the given current content. Never writes. */
export function planRollback(ctx: ServiceContext, audit: AuditDbRow, current: string | null, force = false): RollbackPreview {
  // With the memory-management plugin's store, the managed region is derived from the store: the
  // rollback works on the free text and the region is rendered again (see managed.ts).
  const view = freeTextView(
    ctx.workspaceDir,
    audit.target_file,
    snapshotContent(ctx.db, audit.before_snapshot_id),
    snapshotContent(ctx.db, audit.after_snapshot_id),
    current,
  );
  const { before, after } = view;
  const file = audit.target_file;
  let mode: RollbackMode | null;
  let result: string | null;
  let conflict: RollbackPreview['conflict'] = null;
  if (view.current === after) {
    mode = 'restore';
    result = before;
  } else if (force) {
    mode = 'force';
    result = before;
  } else {
    const reversed = reverseApply(before ?? '', after ?? '', view.current ?? '');
    if (reversed.ok) {
      mode = 'reverse_patch';
      // Undoing the creation of a file that nothing else has written to since leaves nothing: delete it.
      result = before === null && reversed.content === '' ? null : reversed.content;
    } else {
      mode = null;
      result = current;
      conflict = { message: describeConflict(file, reversed.regions), regions: reversed.regions };
    }
  }
  const original = audit.source === 'rollback' && audit.related_audit_id ? getAuditRow(ctx.db, audit.related_audit_id) : null;
  const managed = conflict || !view.managed ? null : planManagedRollback(ctx.workspaceDir, audit, original, current, result, nowOf(ctx));
  if (managed) result = managed.content;
  const d = diffFile(file, current, result);
  return {
    auditId: audit.id,
    targetFile: file,
    mode,
    currentContent: current,
    resultContent: result,
    diff: d.diff,
    lines: d.lines,
    deletesFile: current !== null && result === null,
    conflict,
    reappliesAuditId: audit.source === 'rollback' ? audit.related_audit_id : null,
    managed: managed?.plan ?? null,
  };
}

/** Rolls back one audited write. With dryRun, returns what would happen and writes nothing. */
export async function rollbackWrite(ctx: ServiceContext, input: RollbackInput): Promise<RollbackResult> {
  assertRollbackEnabled(ctx.workspaceDir);
  const first = getAuditRow(ctx.db, input.auditId);
  assertRollbackable(ctx.db, first);
  const file = first.target_file;
  if (input.dryRun) {
    return unapplied(planRollback(ctx, first, readMemoryFile(ctx.workspaceDir, file), input.force), true);
  }
  return withFileOperation(ctx, file, input.lock, async () => {
    // Re-read under the lock: another process may have rolled it back while we waited.
    const audit = getAuditRow(ctx.db, input.auditId);
    assertRollbackable(ctx.db, audit);
    const current = readMemoryFile(ctx.workspaceDir, file);
    const preview = planRollback(ctx, audit, current, input.force);
    if (preview.conflict || !preview.mode) return unapplied(preview, false);
    const at = nowOf(ctx);
    const by = input.by ?? actorOf(ctx);
    const plan = {
      type: 'rollback' as const,
      auditId: audit.id,
      rollbackId: ulid(at),
      newAuditId: ulid(at),
      by,
      reason:
        input.reason?.trim() ||
        (preview.reappliesAuditId ? `undo rollback (re-applies ${preview.reappliesAuditId})` : 'rolled back by the curator'),
      mode: preview.mode,
      previousStatus: audit.status,
      sessionId: audit.session_id,
      turnId: audit.turn_id,
      reappliesAuditId: preview.reappliesAuditId,
      createdAt: at,
    };
    const done = await withManagedStore(ctx.workspaceDir, file, preview.managed, preview.resultContent, () =>
      executeFileOperation(ctx, file, current, preview.resultContent, plan),
    );
    return {
      ...preview,
      status: 'rolled_back',
      dryRun: false,
      rollbackId: plan.rollbackId,
      rollbackAuditId: plan.newAuditId,
      backupSnapshotId: done.backupSnapshotId,
    };
  });
}

export interface SessionRollbackInput {
  sessionKey: string;
  since?: string | number;
  until?: string | number;
  reason?: string;
  by?: string;
  dryRun?: boolean;
  force?: boolean;
  /** Audits the curator chose to leave as they are. */
  skip?: readonly string[];
  /** Audits to restore even over later changes (force for these writes only). */
  forceIds?: readonly string[];
  lock?: LockOptions;
}

export interface SessionRollbackItem {
  auditId: string;
  targetFile: MemoryFileName;
  createdAt: number;
  ok: boolean;
  /** Left alone on the curator's choice (ok is false, nothing was written). */
  skipped?: boolean;
  result?: RollbackResult;
  error?: { kind: string; message: string };
}

export interface SessionRollbackResult {
  sessionKey: string;
  dryRun: boolean;
  /** True when ctx.signal stopped the run early; the items list what was done. */
  cancelled: boolean;
  rolledBack: number;
  failed: number;
  items: SessionRollbackItem[];
}

/**
 * Rolls back every written plugin or retry write of a session, newest first, so each undo sees
 * the file as the later writes left it. A failure is reported and the rest continue.
 * A dry run simulates the sequence in memory, each preview seeing the previous ones' results.
 */
export async function rollbackSession(ctx: ServiceContext, input: SessionRollbackInput): Promise<SessionRollbackResult> {
  if (!input.sessionKey?.trim()) throw new AppError('Invalid', 'session: expected a session key');
  const now = nowOf(ctx);
  const since = parseTime(input.since, 'since', now) ?? 0;
  const until = parseTime(input.until, 'until', now) ?? Number.MAX_SAFE_INTEGER;
  if (!sessionExists(ctx.db, input.sessionKey)) throw new AppError('NotFound', `session ${input.sessionKey} not found`);
  const audits = listSessionWritesToRollBack(ctx.db, input.sessionKey, since, until) as Array<{
    auditId: string;
    targetFile: MemoryFileName;
    createdAt: number;
  }>;
  const simulated = new Map<MemoryFileName, string | null>();
  const items: SessionRollbackItem[] = [];
  let cancelled = false;
  for (const [index, a] of audits.entries()) {
    if (ctx.signal?.aborted) {
      cancelled = true; // stop between writes: each finished rollback is complete and recorded
      break;
    }
    ctx.progress?.(index, audits.length, 'rolling back');
    if (input.skip?.includes(a.auditId)) {
      items.push({ ...a, ok: false, skipped: true });
      continue;
    }
    const force = input.force || Boolean(input.forceIds?.includes(a.auditId));
    try {
      let result: RollbackResult;
      if (input.dryRun) {
        const audit = getAuditRow(ctx.db, a.auditId);
        assertRollbackable(ctx.db, audit);
        const current = simulated.has(a.targetFile) ? simulated.get(a.targetFile)! : readMemoryFile(ctx.workspaceDir, a.targetFile);
        const preview = planRollback(ctx, audit, current, force);
        if (!preview.conflict) simulated.set(a.targetFile, preview.resultContent);
        result = unapplied(preview, true);
      } else {
        result = await rollbackWrite(ctx, {
          auditId: a.auditId,
          reason: input.reason ?? `session ${input.sessionKey} rolled back`,
          by: input.by,
          force,
          lock: input.lock,
        });
      }
      items.push({
        ...a,
        ok: result.status !== 'conflict',
        result,
        ...(result.conflict ? { error: { kind: 'Conflict', message: result.conflict.message } } : {}),
      });
    } catch (e) {
      const err = e as AppError;
      items.push({ ...a, ok: false, error: { kind: err.kind ?? 'Internal', message: err.message } });
    }
  }
  return {
    sessionKey: input.sessionKey,
    dryRun: Boolean(input.dryRun),
    cancelled,
    rolledBack: items.filter((i) => i.ok).length,
    failed: items.filter((i) => !i.ok && !i.skipped).length,
    items,
  };
}
