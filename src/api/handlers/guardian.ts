// write_guardian: audits, diffs, history, rollback, retry and corrections mapped to the contract's DTOs.
import type { AuditRow, GateDecisionRow, RollbackOutcome, SessionRollbackItemDto } from '../../shared/contract';
import type { GateDecision } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import {
  correctWrite,
  fileHistory,
  listAudits,
  retryWrite,
  rollbackSession,
  rollbackWrite,
  showAudit,
  type AuditSummary,
  type ConflictRegion,
  type RollbackResult,
} from '../../core/guardian';
import { getAuditRow, snapshotContent } from '../../core/guardian/rows';
import { auditBriefs, auditDiff, auditStatusCounts } from '../../core/guardian';
import type { Handlers } from '../registry';

export const auditDto = (a: AuditSummary): AuditRow => ({
  id: a.id,
  decisionId: a.decisionId,
  turnId: a.turnId,
  sessionId: a.sessionId,
  targetFile: a.targetFile,
  candidateFact: a.candidateFact,
  status: a.status,
  source: a.source,
  reason: a.reason,
  lineChanges: a.lines,
  beforeSnapshotId: a.beforeSnapshotId,
  afterSnapshotId: a.afterSnapshotId,
  relatedAuditId: a.relatedAuditId,
  contentKnown: a.contentKnown,
  createdAt: a.createdAt,
});

function conflictText(regions: ConflictRegion[]): string {
  return regions
    .map((r) => [`@@ line ${r.line} @@`, ...r.current.map((l) => `  now     | ${l}`), ...r.written.map((l) => `  written | ${l}`), ...r.wanted.map((l) => `  before  | ${l}`)].join('\n'))
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
    conflict: p.conflict ? { message: p.conflict.message, current: p.currentContent, conflictingDiff: conflictText(p.conflict.regions) } : null,
    rollbackId: p.rollbackId,
    rollbackAuditId: p.rollbackAuditId,
  };
}

export const guardianHandlers = {
  'guardian.stats': (_input, env) => auditStatusCounts(env.session.serviceContext()),
  'guardian.list': (input, env) => {
    const page = listAudits(env.session.serviceContext(), {
      sessionKey: input.sessionId, file: input.file, status: input.status, source: input.source,
      since: input.since, until: input.until, limit: input.limit, cursor: input.cursor,
    });
    // A rollback row says which write it undid, so two rollbacks of one file are told apart.
    const undone = auditBriefs(env.session.serviceContext(), page.items.filter((a) => a.source === 'rollback' && a.relatedAuditId).map((a) => a.relatedAuditId!));
    const items = page.items.map((a): AuditRow => {
      const u = a.source === 'rollback' && a.relatedAuditId ? undone.get(a.relatedAuditId) : undefined;
      return { ...auditDto(a), undid: u ? { id: u.id, targetFile: u.targetFile, candidateFact: u.candidateFact, createdAt: u.createdAt } : null };
    });
    return { items, nextCursor: page.nextCursor };
  },
  'guardian.show': (input, env) => {
    const d = showAudit(env.session.serviceContext(), input.id);
    const decision: GateDecisionRow | null = d.decision && d.audit.turnId && d.audit.sessionId
      ? {
          id: d.decision.id, turnId: d.audit.turnId, sessionId: d.audit.sessionId, decision: d.decision.decision as GateDecision,
          reason: d.decision.reason, candidateFact: d.decision.candidateFact, model: d.decision.llmModel,
          latencyMs: d.decision.llmLatencyMs, createdAt: d.decision.createdAt,
        }
      : null;
    return {
      audit: { ...auditDto(d.audit), diff: d.audit.diff, llmModel: d.audit.llmModel, latencyMs: d.audit.llmLatencyMs, metadata: d.audit.metadata },
      decision,
      turn: d.turn,
      rollback: d.rollback
        ? { id: d.rollback.id, auditId: d.rollback.auditId, rolledBackAt: d.rollback.rolledBackAt, rolledBackBy: d.rollback.rolledBackBy, reason: d.rollback.reason,
            restoredSnapshotId: d.rollback.restoredSnapshotId, previousStatus: d.rollback.previousStatus, mode: d.rollback.mode, rollbackAuditId: d.rollback.rollbackAuditId }
        : null,
      corrections: d.corrections,
    };
  },
  'guardian.diff': (input, env) => {
    const ctx = env.session.serviceContext();
    const d = auditDiff(ctx, input.id);
    const row = getAuditRow(ctx.db, input.id);
    return { auditId: d.auditId, fileName: d.targetFile, before: snapshotContent(ctx.db, row.before_snapshot_id), after: snapshotContent(ctx.db, row.after_snapshot_id), diff: d.diff };
  },
  'guardian.history': (input, env) => {
    const page = fileHistory(env.session.serviceContext(), { file: input.file, limit: input.limit, cursor: input.cursor });
    return {
      nextCursor: page.nextCursor,
      items: page.items.map((h) => ({
        auditId: h.auditId, fileName: input.file, status: h.status, source: h.source, actor: h.who, reason: h.why,
        candidateFact: h.candidateFact, snapshotId: h.afterSnapshotId, contentHash: h.contentHash, lineChanges: h.lines, createdAt: h.createdAt,
      })),
    };
  },
  'guardian.rollback': async (input, env) =>
    rollbackDto(await rollbackWrite(env.session.serviceContext(), { auditId: input.auditId, reason: input.reason, dryRun: input.dryRun, force: input.force })),
  'guardian.rollbackSession': async (input, env) => {
    const ctx = env.session.serviceContext();
    const r = await rollbackSession(ctx, {
      sessionKey: input.sessionId, since: input.since, until: input.until, reason: input.reason, dryRun: input.dryRun, force: input.force,
      skip: input.skip, forceIds: input.forceIds,
    });
    const briefs = auditBriefs(ctx, r.items.map((i) => i.auditId));
    const results = r.items.map((i): SessionRollbackItemDto => {
      const about = { createdAt: i.createdAt, candidateFact: briefs.get(i.auditId)?.candidateFact ?? null };
      if (i.result) return { ...rollbackDto(i.result), ...about, error: null };
      return {
        status: i.skipped ? 'skipped' : 'refused', auditId: i.auditId, dryRun: r.dryRun, mode: null, fileName: i.targetFile, resultContent: null, diff: null,
        conflict: null, rollbackId: null, rollbackAuditId: null, ...about, error: i.skipped ? null : (i.error?.message ?? null),
      };
    });
    return { sessionId: r.sessionKey, dryRun: r.dryRun, results, rolledBack: r.rolledBack, refused: r.failed };
  },
  'guardian.retry': async (input, env) => {
    if (!input.dryRun && !input.reason) throw new AppError('Invalid', 'reason: say why this write is retried (it is kept in the audit, as for a rollback)');
    const r = await retryWrite(env.session.serviceContext(), {
      auditId: input.auditId, fact: input.fact, file: input.file, content: input.content, dryRun: input.dryRun, reason: input.reason,
    });
    return {
      originalAuditId: r.originalAuditId, dryRun: r.dryRun, targetFile: r.targetFile, content: r.proposedContent,
      currentContent: r.currentContent, diff: r.diff || null, auditId: r.retryAuditId,
    };
  },
  'guardian.correct': (input, env) =>
    correctWrite(env.session.serviceContext(), {
      auditId: input.auditId, status: input.status, fact: input.fact, file: input.file, reason: input.reason,
      applyToFuture: input.applyToFuture, pattern: input.pattern,
    }),
} satisfies Partial<Handlers>;
