// Resolving findings and removing secrets: each file change is a guardian retry write (the same
// journalled, locked, atomic write path as rollback), linked to a correction of the write that
// introduced the stale or sensitive line.
import type { MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { ulid } from 'ulid';
import { correctWrite, recordExternalChanges } from '../guardian';
import { executeFileOperation, withFileOperation, type RetryPlan } from '../guardian/operations';
import { getAuditRow } from '../guardian/rows';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { readMemoryFile } from '../files/memoryFiles';
import { blameFile } from './blame';
import { statementOf } from './conflicts';
import { closeFinding, getFinding, scanMemoryHealth, type Finding, type FindingLine } from './findings';
import { addedLines, sensitiveSpans } from './secrets';
import { headVersion } from './versions';

export const REMOVED_MARK = '[removed]';

interface LineEdit {
  line: number;
  text: string;
  /** null: delete the line. */
  replacement: string | null;
  correction: { status: 'written' | 'refused'; fact?: string; reason: string; applyToFuture?: boolean; pattern?: string };
}

export interface FileChange {
  fileName: MemoryFileName;
  retryAuditId: string;
  correctionIds: string[];
}

function locate(lines: string[], edit: LineEdit, file: string): number {
  if (lines[edit.line - 1] === edit.text) return edit.line - 1;
  const at = lines.indexOf(edit.text);
  if (at < 0)
    throw new AppError('Conflict', `${file} no longer holds the line "${statementOf(edit.text)}"; scan again (reflection health)`);
  return at;
}

/**
 * Applies line edits to one memory file as a recorded curator write (a guardian retry: journalled,
 * locked, atomic, like rollback), with one correction per edited line. The file is read and edited
 * while holding its lock, so a write the plugin makes meanwhile is never overwritten.
 */
export async function applyLineEdits(
  ctx: ServiceContext,
  file: MemoryFileName,
  edits: LineEdit[],
  reason: string,
  by?: string,
): Promise<FileChange> {
  recordExternalChanges(ctx, [file]);
  const actor = by ?? actorOf(ctx);
  return withFileOperation(ctx, file, undefined, async () => {
    const current = readMemoryFile(ctx.workspaceDir, file) ?? '';
    const lines = current.split('\n');
    const located = edits.map((e) => ({ e, at: locate(lines, e, file) })).sort((x, y) => y.at - x.at);
    const writers = located.map(({ at }) => blameFile(ctx, { file, line: at + 1 }).lines[0]?.write?.auditId ?? null);
    const related = writers.find((w): w is string => w !== null) ?? headVersion(ctx.db, file)?.audit_id;
    if (!related)
      throw new AppError(
        'Conflict',
        `${file} has no recorded write yet to attach a curator write to; run \`reflection guardian reconcile\` first`,
      );
    for (const { e, at } of located) {
      if (e.replacement === null) lines.splice(at, 1);
      else lines[at] = e.replacement;
    }
    const planned = lines.join('\n');
    if (planned === current) throw new AppError('Invalid', `${file} already says that; nothing to write`);
    const audit = getAuditRow(ctx.db, related);
    const at = nowOf(ctx);
    // The curator write's fact says what memory holds now, never the removed value.
    const first = edits[0];
    if (!first) throw new AppError('Invalid', `${file}: no line edits to apply`);
    const fact =
      first.correction.fact ?? (first.replacement !== null ? statementOf(first.replacement) : `removed: ${statementOf(first.text)}`);
    const plan: RetryPlan = {
      type: 'retry',
      originalAuditId: related,
      newAuditId: ulid(at),
      by: actor,
      reason,
      fact,
      sessionId: audit.session_id,
      turnId: audit.turn_id,
      correctionId: null,
      createdAt: at,
    };
    await executeFileOperation(ctx, file, current, planned, plan);
    // Corrections only once the file is written, each linked to that write: a refused write leaves none behind.
    const correctionIds = located.flatMap(({ e }, i) => {
      const auditId = writers[i];
      return auditId ? [correctWrite(ctx, { auditId, file, by: actor, retryAuditId: plan.newAuditId, ...e.correction }).id] : [];
    });
    return { fileName: file, retryAuditId: plan.newAuditId, correctionIds };
  });
}

const asBulletLike = (original: string, text: string) => {
  const marker = /^\s*(?:[-*+]|\d+[.)])\s+/.exec(original)?.[0] ?? '';
  return marker && !/^\s*(?:[-*+]|\d+[.)])\s+/.test(text) ? `${marker}${text.trim()}` : text.trim();
};

export interface ResolveInput {
  id: string;
  action: 'keep' | 'merge' | 'dismiss' | 'remove';
  /** keep: the index (in the finding's lines) of the line to keep. */
  keep?: number;
  /** merge: the line that replaces all of them. */
  text?: string;
  reason?: string;
  by?: string;
}

function editsFor(f: Finding, input: ResolveInput): LineEdit[] {
  const lines = f.detail.lines;
  if (input.action === 'remove') {
    if (f.kind !== 'secret') throw new AppError('Invalid', `finding ${f.id} is a ${f.kind}: use keep, merge or dismiss`);
    return lines.map((l) => secretEdit(l, f.detail.piiKind ?? null));
  }
  if (f.kind === 'secret') throw new AppError('Invalid', `finding ${f.id} is a secret: use remove or dismiss`);
  const what =
    f.kind === 'duplicate' ? 'repeats a fact already in memory' : `contradicts another line on ${f.attribute ?? 'the same attribute'}`;
  if (input.action === 'keep') {
    const keep = input.keep ?? -1;
    const keptLine = Number.isInteger(keep) ? lines[keep] : undefined;
    if (!keptLine) throw new AppError('Invalid', `keep: expected a line index from 0 to ${lines.length - 1}`);
    const kept = statementOf(keptLine.text);
    return lines
      .filter((_, i) => i !== keep)
      .map((l) => ({
        line: l.line,
        text: l.text,
        replacement: null,
        correction: { status: 'written', fact: kept, reason: `${what}: "${statementOf(l.text)}" is superseded by "${kept}"` },
      }));
  }
  const merged = input.text?.trim();
  if (!merged) throw new AppError('Invalid', 'merge: give the merged line (text)');
  return lines.map((l, i) => ({
    line: l.line,
    text: l.text,
    replacement: i === 0 ? asBulletLike(l.text, merged) : null,
    correction: { status: 'written', fact: merged, reason: `${what}: merged by the curator into "${merged}"` },
  }));
}

function secretEdit(l: FindingLine, kind: string | null): LineEdit {
  const spans = sensitiveSpans(l.text).filter((s) => !kind || s.type === kind);
  if (!spans.length) throw new AppError('Conflict', `the line no longer holds a ${kind ?? 'sensitive value'}; scan again`);
  let text = l.text;
  let pattern = l.text;
  for (const s of [...spans].sort((a, b) => b.start - a.start)) {
    text = text.slice(0, s.start) + REMOVED_MARK + text.slice(s.end);
    pattern = pattern.slice(0, s.start) + `<${s.type}>` + pattern.slice(s.end);
  }
  return {
    line: l.line,
    text: l.text,
    replacement: text,
    correction: {
      status: 'refused',
      reason: `the write stored ${spans.map((s) => s.type).join(', ')} in memory; secrets and personal data do not belong there`,
      applyToFuture: true,
      pattern: statementOf(pattern),
    },
  };
}

/** Resolves a finding: keep one line, merge them into one, remove a secret, or dismiss it. */
export async function resolveFinding(ctx: ServiceContext, input: ResolveInput): Promise<{ finding: Finding; changes: FileChange[] }> {
  const f = getFinding(ctx, input.id);
  if (f.status !== 'open') throw new AppError('Conflict', `finding ${f.id} is already ${f.status}`);
  if (input.action === 'dismiss')
    return { finding: closeFinding(ctx, f.id, 'dismissed', { action: 'dismiss', reason: input.reason ?? null }, input.by), changes: [] };
  const edits = editsFor(f, input);
  const byFile = new Map<MemoryFileName, LineEdit[]>();
  f.detail.lines.forEach((l) => byFile.set(l.fileName, []));
  edits.forEach((e) => byFile.get(f.detail.lines.find((l) => l.line === e.line && l.text === e.text)!.fileName)!.push(e));
  const changes: FileChange[] = [];
  const reason = input.reason?.trim() || `memory health: ${input.action} (${f.kind}${f.attribute ? `, ${f.attribute}` : ''})`;
  for (const [file, fileEdits] of byFile) if (fileEdits.length) changes.push(await applyLineEdits(ctx, file, fileEdits, reason, input.by));
  const status = input.action === 'merge' ? 'merged' : 'resolved';
  const kept = input.action === 'keep' ? (f.detail.lines[input.keep!]?.text ?? null) : input.action === 'merge' ? input.text : null;
  return { finding: closeFinding(ctx, f.id, status, { action: input.action, kept, changes }, input.by), changes };
}

/** The one-click action on a flagged write: removes the sensitive values it added from its file. */
export async function removeSecretsOfWrite(ctx: ServiceContext, input: { auditId: string; by?: string }): Promise<FileChange> {
  const audit = getAuditRow(ctx.db, input.auditId);
  const values = new Set(addedLines(audit.diff).flatMap((l) => sensitiveSpans(l).map((s) => s.value)));
  if (!values.size) throw new AppError('Invalid', `write ${audit.id} added no secret or personal data`);
  const file = audit.target_file;
  const lines = (readMemoryFile(ctx.workspaceDir, file) ?? '').split('\n');
  const edits = lines.flatMap((text, i) => {
    const hits = sensitiveSpans(text).filter((s) => values.has(s.value));
    return hits.length ? [secretEdit({ fileName: file, line: i + 1, text }, null)] : [];
  });
  if (!edits.length) throw new AppError('Conflict', `${file} no longer holds the values write ${audit.id} added; nothing to remove`);
  const change = await applyLineEdits(ctx, file, edits, `removed secrets and personal data added by write ${audit.id}`, input.by);
  scanMemoryHealth(ctx); // closes the secret findings whose values are gone now
  return change;
}
