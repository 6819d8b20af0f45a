// Retrying a write with a corrected fact or target file. Without an LLM the fact is appended as a
// bullet under one standard section of the target file, "## Corrections by the curator", so the
// curator's additions stay together and are easy to review; or the curator supplies the whole new
// content (the UI's Monaco editor saves this way after a dry-run preview). Each retry is a new
// recorded write (source 'retry', related_audit_id = the original) made crash-safe like a rollback.
import { ulid } from 'ulid';
import type { LineChanges, MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { assertMemoryFileName, readMemoryFile, type LockOptions } from '../files/memoryFiles';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { diffFile } from '../text/diff';
import { planManaged, withManagedStore, type ManagedPlan } from './managed';
import { executeFileOperation, withFileOperation } from './operations';
import { getAuditRow, type AuditDbRow } from './rows';
import { findLatestWrittenCorrection } from '../db/repositories/corrections';

export const CURATOR_SECTION = '## Corrections by the curator';

export interface RetryInput {
  auditId: string;
  fact?: string;
  file?: string;
  /** The complete new file content, instead of appending the fact. */
  content?: string;
  reason?: string;
  by?: string;
  dryRun?: boolean;
  /** A behaviour correction this retry applies; it gets linked to the new write. */
  correctionId?: string;
  lock?: LockOptions;
}

export interface RetryResult {
  originalAuditId: string;
  targetFile: MemoryFileName;
  fact: string | null;
  usedSuppliedContent: boolean;
  currentContent: string | null;
  proposedContent: string;
  diff: string;
  lines: LineChanges;
  dryRun: boolean;
  retryAuditId: string | null;
  /** The memory-management plugin's fact store changes with the file (its managed region). */
  managed?: ManagedPlan | null;
}

/** Adds "- fact" at the end of the curator section, creating the section at the end of the file if needed. */
export function appendUnderCuratorSection(content: string | null, fact: string): string {
  const text = content ?? '';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const bullet = `- ${fact.trim().replace(/\s*\r?\n\s*/g, ' ')}`;
  const lines = text.split(/\r?\n/);
  const header = lines.findIndex((l) => l.trim() === CURATOR_SECTION);
  if (header < 0) {
    const body = text.replace(/(\r?\n)*$/, '');
    return `${body ? `${body}${eol}${eol}` : ''}${CURATOR_SECTION}${eol}${eol}${bullet}${eol}`;
  }
  let end = lines.length;
  for (let i = header + 1; i < lines.length; i++) {
    if (/^#{1,2}\s/.test(lines[i] ?? '')) {
      end = i;
      break;
    }
  }
  let insertAt = end;
  while (insertAt > header + 1 && lines[insertAt - 1]?.trim() === '') insertAt--;
  if (lines.slice(header + 1, end).some((l) => l.trim() === bullet)) return text;
  const out = [...lines.slice(0, insertAt), ...(insertAt === header + 1 ? [''] : []), bullet, ...lines.slice(insertAt)];
  let joined = out.join(eol);
  if (!joined.endsWith(eol)) joined += eol;
  return joined;
}

function latestCorrection(
  ctx: ServiceContext,
  auditId: string,
): { fact: string | null; file: MemoryFileName | null; id: string } | undefined {
  return findLatestWrittenCorrection(ctx.db, auditId) as { fact: string | null; file: MemoryFileName | null; id: string } | undefined;
}

function resolveRetry(ctx: ServiceContext, audit: AuditDbRow, input: RetryInput) {
  const correction = latestCorrection(ctx, audit.id);
  const file = input.file ? assertMemoryFileName(input.file) : (correction?.file ?? audit.target_file);
  const fact = input.fact?.trim() || correction?.fact || audit.candidate_fact || null;
  if (input.content === undefined && !fact) {
    throw new AppError('Invalid', `audit ${audit.id} has no candidate fact; give --fact "..." or --content-file`);
  }
  return { file, fact, correctionId: input.correctionId ?? correction?.id ?? null };
}

function preview(
  ctx: ServiceContext,
  audit: AuditDbRow,
  file: MemoryFileName,
  fact: string | null,
  current: string | null,
  content: string | undefined,
): Omit<RetryResult, 'dryRun' | 'retryAuditId'> {
  let proposed = content ?? appendUnderCuratorSection(current, fact!);
  // With the memory-management plugin, the fact also joins its managed region and fact store.
  const managed = planManaged(
    ctx.workspaceDir,
    { file, fact, sessionKey: audit.session_id, at: nowOf(ctx), direction: 'restore', reason: 'retried by the curator' },
    current,
    proposed,
    nowOf(ctx),
  );
  if (managed?.content != null) proposed = managed.content;
  const d = diffFile(file, current, proposed);
  return {
    originalAuditId: audit.id,
    targetFile: file,
    fact,
    usedSuppliedContent: content !== undefined,
    currentContent: current,
    proposedContent: proposed,
    diff: d.diff,
    lines: d.lines,
    managed: managed?.plan ?? null,
  };
}

/** Re-applies a write with a corrected fact, file or content. With dryRun, returns the proposed content only. */
export async function retryWrite(ctx: ServiceContext, input: RetryInput): Promise<RetryResult> {
  const audit = getAuditRow(ctx.db, input.auditId);
  if (input.content !== undefined && typeof input.content !== 'string') throw new AppError('Invalid', 'content: expected text');
  const { file, fact, correctionId } = resolveRetry(ctx, audit, input);
  if (input.dryRun) {
    return { ...preview(ctx, audit, file, fact, readMemoryFile(ctx.workspaceDir, file), input.content), dryRun: true, retryAuditId: null };
  }
  return withFileOperation(ctx, file, input.lock, async () => {
    const current = readMemoryFile(ctx.workspaceDir, file);
    const p = preview(ctx, audit, file, fact, current, input.content);
    if (p.proposedContent === current) throw new AppError('Invalid', `${file} already says that; nothing to write`);
    const at = nowOf(ctx);
    const plan = {
      type: 'retry' as const,
      originalAuditId: audit.id,
      newAuditId: ulid(at),
      by: input.by ?? actorOf(ctx),
      reason:
        input.reason?.trim() || (p.usedSuppliedContent ? 'retried with content supplied by the curator' : 'retried with a corrected fact'),
      fact,
      sessionId: audit.session_id,
      turnId: audit.turn_id,
      correctionId,
      createdAt: at,
    };
    await withManagedStore(ctx.workspaceDir, file, p.managed, p.proposedContent, () =>
      executeFileOperation(ctx, file, current, p.proposedContent, plan),
    );
    return { ...p, dryRun: false, retryAuditId: plan.newAuditId };
  });
}
