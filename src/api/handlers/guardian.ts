// write_guardian: audits, diffs and history are the services' own results; rollback and retry still map theirs.
import type { RollbackOutcome, SessionRollbackItemDto } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { correctWrite, fileHistory, listAudits, retryWrite, rollbackSession, rollbackWrite, showAudit } from '../../core/guardian';
import type { ConflictRegion, RollbackResult } from '../../core/guardian';
import { auditBriefs, auditDiff, auditStatusCounts } from '../../core/guardian';
import type { Handlers } from '../registry';

function conflictText(regions: ConflictRegion[]): string {
  return regions
    .map((r) =>
      [
        `@@ line ${r.line} @@`,
        ...r.current.map((l) => `  now     | ${l}`),
        ...r.written.map((l) => `  written | ${l}`),
        ...r.wanted.map((l) => `  before  | ${l}`),
      ].join('\n'),
    )
    .join('\n');
}

function rollbackDto(p: RollbackResult): RollbackOutcome {
  return {
    status: p.status,
    auditId: p.auditId,
    dryRun: p.dryRun,
    mode: p.mode,
    fileName: p.targetFile,
    resultContent: p.resultContent,
    diff: p.diff || null,
    conflict: p.conflict
      ? { message: p.conflict.message, current: p.currentContent, conflictingDiff: conflictText(p.conflict.regions) }
      : null,
    rollbackId: p.rollbackId,
    rollbackAuditId: p.rollbackAuditId,
  };
}

export const guardianHandlers = {
  'guardian.stats': (_input, env) => auditStatusCounts(env.session.serviceContext()),
  'guardian.list': (input, env) => listAudits(env.session.serviceContext(), input),
  'guardian.show': (input, env) => showAudit(env.session.serviceContext(), input.id),
  'guardian.diff': (input, env) => auditDiff(env.session.serviceContext(), input.id),
  'guardian.history': (input, env) => fileHistory(env.session.serviceContext(), input),
  'guardian.rollback': async (input, env) =>
    rollbackDto(
      await rollbackWrite(env.session.serviceContext(), {
        auditId: input.auditId,
        reason: input.reason,
        dryRun: input.dryRun,
        force: input.force,
      }),
    ),
  'guardian.rollbackSession': async (input, env) => {
    const ctx = env.session.serviceContext();
    const r = await rollbackSession(ctx, {
      sessionKey: input.sessionId,
      since: input.since,
      until: input.until,
      reason: input.reason,
      dryRun: input.dryRun,
      force: input.force,
      skip: input.skip,
      forceIds: input.forceIds,
    });
    const briefs = auditBriefs(
      ctx,
      r.items.map((i) => i.auditId),
    );
    const results = r.items.map((i): SessionRollbackItemDto => {
      const about = { createdAt: i.createdAt, candidateFact: briefs.get(i.auditId)?.candidateFact ?? null };
      if (i.result) return { ...rollbackDto(i.result), ...about, error: null };
      return {
        status: i.skipped ? 'skipped' : 'refused',
        auditId: i.auditId,
        dryRun: r.dryRun,
        mode: null,
        fileName: i.targetFile,
        resultContent: null,
        diff: null,
        conflict: null,
        rollbackId: null,
        rollbackAuditId: null,
        ...about,
        error: i.skipped ? null : (i.error?.message ?? null),
      };
    });
    return { sessionId: r.sessionKey, dryRun: r.dryRun, results, rolledBack: r.rolledBack, refused: r.failed };
  },
  'guardian.retry': async (input, env) => {
    if (!input.dryRun && !input.reason)
      throw new AppError('Invalid', 'reason: say why this write is retried (it is kept in the audit, as for a rollback)');
    const r = await retryWrite(env.session.serviceContext(), {
      auditId: input.auditId,
      fact: input.fact,
      file: input.file,
      content: input.content,
      dryRun: input.dryRun,
      reason: input.reason,
    });
    return {
      originalAuditId: r.originalAuditId,
      dryRun: r.dryRun,
      targetFile: r.targetFile,
      content: r.proposedContent,
      currentContent: r.currentContent,
      diff: r.diff || null,
      auditId: r.retryAuditId,
    };
  },
  'guardian.correct': (input, env) =>
    correctWrite(env.session.serviceContext(), {
      auditId: input.auditId,
      status: input.status,
      fact: input.fact,
      file: input.file,
      reason: input.reason,
      applyToFuture: input.applyToFuture,
      pattern: input.pattern,
    }),
} satisfies Partial<Handlers>;
