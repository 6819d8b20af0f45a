// Crash-safe workbench writes. Each write is: (1) its intent committed to file_operations, with
// the current and planned content as snapshots; (2) the file written atomically under the lock;
// (3) the database effects and the journal row committed in one transaction. If the process dies
// anywhere in between, reconcilePending() finishes the operation when the file already holds the
// planned content, or cancels it when the file was never touched, so file and database agree.
import { ulid } from 'ulid';
import type { MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { writeTx, type DB } from '../db/connection';
import { storeSnapshot } from '../db/snapshots';
import { RecorderCore } from '../recorder/recorder';
import { writeInput } from '../recorder/schemas';
import { readMemoryFile, withMemoryFileLock, writeMemoryFileLocked, type LockOptions } from '../files/memoryFiles';
import { nowOf, type ServiceContext } from '../context';
import { sha256 } from '../text/diff';
import { recordExternalChanges } from './external';
import { faultPoint } from './faults';
import { pruneSnapshots } from './prune';
import { snapshotContent } from './rows';
import {
  findOperationById,
  findUnfinishedOperationOnFile,
  insertPlannedOperation,
  insertRollback,
  linkCorrectionToRetry,
  listFilesWithPlannedOperations,
  listPlannedOperations,
  listPlannedOperationsOnFile,
  markAuditRolledBack,
  markOperationAbandoned,
  markOperationCommitted,
} from '../db/repositories/fileOperations';
import type { OperationRow } from '../db/repositories/fileOperations';

export interface RollbackPlan {
  type: 'rollback';
  auditId: string;
  rollbackId: string;
  newAuditId: string;
  by: string;
  reason: string;
  mode: 'restore' | 'reverse_patch' | 'force';
  previousStatus: string;
  sessionId: string | null;
  turnId: string | null;
  /** Set when the undone audit was itself a rollback: this write re-applies that audit's original change. */
  reappliesAuditId: string | null;
  createdAt: number;
}

export interface RetryPlan {
  type: 'retry';
  originalAuditId: string;
  newAuditId: string;
  by: string;
  reason: string;
  fact: string | null;
  sessionId: string | null;
  turnId: string | null;
  correctionId: string | null;
  createdAt: number;
}

export type OperationPlan = RollbackPlan | RetryPlan;

const hashOf = (content: string | null) => (content === null ? null : sha256(content));

function recordIntent(
  ctx: ServiceContext,
  file: MemoryFileName,
  current: string | null,
  planned: string | null,
  plan: OperationPlan,
): { id: string; backupSnapshotId: string | null } {
  return writeTx(ctx.db, () => {
    const unfinished = findUnfinishedOperationOnFile(ctx.db, file);
    if (unfinished) {
      throw new AppError(
        'Conflict',
        `an interrupted operation (${unfinished}) on ${file} is unfinished; run \`reflection guardian reconcile\` (or reopen the workspace) first`,
      );
    }
    const at = plan.createdAt;
    const backupSnapshotId = current === null ? null : storeSnapshot(ctx.db, file, current, at);
    const plannedSnapshotId = planned === null ? null : storeSnapshot(ctx.db, file, planned, at);
    const id = ulid(at);
    const auditId = plan.type === 'rollback' ? plan.auditId : plan.originalAuditId;
    insertPlannedOperation(ctx.db, {
      id,
      kind: plan.type,
      targetFile: file,
      auditId,
      expectedHash: hashOf(current),
      plannedHash: hashOf(planned),
      backupSnapshotId,
      plannedSnapshotId,
      plan: JSON.stringify(plan),
      createdAt: at,
    });
    return { id, backupSnapshotId };
  });
}

function applyPlan(db: DB, op: OperationRow, plan: OperationPlan): void {
  const rollback = plan.type === 'rollback';
  // The workbench's own write, recorded like any other: snapshots, diff, linked to the audit it follows.
  new RecorderCore(db).recordWriteInTx(
    writeInput.parse({
      id: plan.newAuditId,
      targetFile: op.target_file,
      sessionId: plan.sessionId ?? undefined,
      turnId: plan.turnId ?? undefined,
      candidateFact: rollback ? undefined : (plan.fact ?? undefined),
      before: snapshotContent(db, op.backup_snapshot_id),
      after: snapshotContent(db, op.planned_snapshot_id),
      status: 'written',
      source: plan.type,
      relatedAuditId: rollback ? plan.auditId : plan.originalAuditId,
      reason: plan.reason,
      metadata: rollback
        ? {
            by: plan.by,
            mode: plan.mode,
            rollbackId: plan.rollbackId,
            ...(plan.reappliesAuditId ? { reappliesAuditId: plan.reappliesAuditId } : {}),
          }
        : { by: plan.by, ...(plan.correctionId ? { correctionId: plan.correctionId } : {}) },
      createdAt: plan.createdAt,
    }),
  );
  if (!rollback) {
    if (plan.correctionId) linkCorrectionToRetry(db, plan.correctionId, plan.newAuditId);
    return;
  }
  if (markAuditRolledBack(db, plan.auditId) !== 1)
    throw new AppError('Conflict', `audit ${plan.auditId} is no longer a written audit; it may have been rolled back elsewhere`);
  insertRollback(db, {
    id: plan.rollbackId,
    auditId: plan.auditId,
    at: plan.createdAt,
    by: plan.by,
    reason: plan.reason,
    // What the file was restored to: the before-snapshot (deduplicated to the same id) for restore and
    // force; for reverse_patch the merged content, since later writes were kept.
    restoredSnapshotId: op.planned_snapshot_id,
    previousStatus: plan.previousStatus,
    backupSnapshotId: op.backup_snapshot_id,
    mode: plan.mode,
    rollbackAuditId: plan.newAuditId,
  });
}

/** Applies a planned operation's database effects and marks it committed, in one transaction. */
function commitOperation(db: DB, id: string, at: number, message: string | null = null): void {
  writeTx(db, () => {
    const op = findOperationById(db, id);
    if (!op || op.state !== 'planned') return;
    applyPlan(db, op, JSON.parse(op.plan) as OperationPlan);
    markOperationCommitted(db, id, at, message);
  });
}

function abandonOperation(db: DB, id: string, at: number, message: string): void {
  // A cancelled operation's snapshots are referenced by nothing else; releasing them lets retention prune them.
  markOperationAbandoned(db, id, at, message);
}

/**
 * Runs fn under the file's lock, after settling any operation a crash left on that file, then applies
 * snapshot retention. Rollback and retry plan and execute their write inside fn.
 */
export async function withFileOperation<T>(
  ctx: ServiceContext,
  file: MemoryFileName,
  lock: LockOptions | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  const result = await withMemoryFileLock(
    ctx.workspaceDir,
    file,
    () => {
      faultPoint('lock-acquired');
      reconcileFileLocked(ctx, file);
      return fn();
    },
    lock,
  );
  pruneSnapshots(ctx, { file });
  return result;
}

/**
 * Runs one planned write while the caller holds the file's lock: intent, file, commit.
 * If the commit fails after the file was written, the file is put back and the intent cancelled.
 */
export async function executeFileOperation(
  ctx: ServiceContext,
  file: MemoryFileName,
  current: string | null,
  planned: string | null,
  plan: OperationPlan,
): Promise<{ operationId: string; backupSnapshotId: string | null }> {
  const intent = recordIntent(ctx, file, current, planned, plan);
  faultPoint('intent-recorded');
  await writeMemoryFileLocked(ctx.workspaceDir, file, planned);
  faultPoint('file-written');
  try {
    commitOperation(ctx.db, intent.id, nowOf(ctx));
  } catch (e) {
    await writeMemoryFileLocked(ctx.workspaceDir, file, current);
    abandonOperation(ctx.db, intent.id, nowOf(ctx), `cancelled: ${(e as Error).message}`);
    throw e;
  }
  faultPoint('committed');
  return { operationId: intent.id, backupSnapshotId: intent.backupSnapshotId };
}

function describe(op: OperationRow, plan: OperationPlan): string {
  const auditId = plan.type === 'rollback' ? plan.auditId : plan.originalAuditId;
  return `the interrupted ${op.kind} of audit ${auditId} on ${op.target_file}`;
}

/**
 * Finishes or cancels workbench writes a crash left unfinished. Returns one human-readable
 * message per operation handled; an empty list means everything already agreed.
 */
export async function reconcilePending(ctx: ServiceContext): Promise<string[]> {
  const files = listFilesWithPlannedOperations(ctx.db);
  const messages: string[] = [];
  for (const file of files) {
    try {
      // Taking the lock waits for a live writer to finish; a crashed writer's lock goes stale after 5 s.
      messages.push(...(await withMemoryFileLock(ctx.workspaceDir, file, () => reconcileFileLocked(ctx, file))));
    } catch (e) {
      messages.push(`Could not finish the interrupted operations on ${file} yet: ${(e as Error).message}`);
    }
  }
  return messages;
}

/**
 * reconcilePending for one file whose lock the caller holds. Rollback and retry call it first, so
 * an operation a crash left behind never blocks the next one.
 */
export function reconcileFileLocked(ctx: ServiceContext, file: MemoryFileName): string[] {
  const pending = listPlannedOperationsOnFile(ctx.db, file);
  const messages: string[] = [];
  for (const op of pending) {
    const what = describe(op, JSON.parse(op.plan) as OperationPlan);
    const hash = hashOf(readMemoryFile(ctx.workspaceDir, op.target_file));
    if (hash === op.planned_hash) {
      const msg = `Finished ${what}: the file had been written but not recorded; it is recorded now.`;
      commitOperation(ctx.db, op.id, nowOf(ctx), msg);
      messages.push(msg);
    } else if (hash === op.expected_hash) {
      const msg = `Cancelled ${what}: it stopped before ${op.target_file} was written, so the file is unchanged. Run it again if it is still wanted.`;
      abandonOperation(ctx.db, op.id, nowOf(ctx), msg);
      messages.push(msg);
    } else {
      const msg = `Cancelled ${what}: ${op.target_file} has since been changed by someone else; its current content was recorded as an external change.`;
      abandonOperation(ctx.db, op.id, nowOf(ctx), msg);
      recordExternalChanges(ctx, [op.target_file]);
      messages.push(msg);
    }
  }
  return messages;
}

/** Operations still waiting for reconcilePending (shown by the UI as a warning). */
export function listPendingOperations(
  ctx: ServiceContext,
): Array<{ id: string; kind: string; targetFile: MemoryFileName; auditId: string; createdAt: number }> {
  return listPlannedOperations(ctx.db);
}
