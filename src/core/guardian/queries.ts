// Audit queries: list, show, diff and the history of one file. Lists are keyset-paged on
// (created_at, rowid), which every audit index carries, so a page costs an index range scan.
import fs from 'node:fs';
import type { AuditDetail, AuditDiff, AuditStatusCount, FileVersion } from '../../shared/contract/guardian';
import type { AuditRow } from '../../shared/contract/records';
import { AUDIT_SOURCES, AUDIT_STATUSES, type AuditSource, type AuditStatus, type MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { Page } from '../../shared/paging';
import { nowOf, type ServiceContext } from '../context';
import { decodeCursor, pageOf } from '../db/paging';
import {
  auditFromDbRow,
  countAuditsByStatus,
  listAuditBriefs,
  listAuditsPage,
  listFileVersions,
  listFollowUpAudits,
} from '../db/repositories/audits';
import type { AuditBrief, FileVersionDbRow } from '../db/repositories/audits';
import { findDecisionById } from '../db/repositories/decisions';
import { findRollbackOfAudit, findRollbackRecordedBy } from '../db/repositories/rollbacks';
import { findTurnById } from '../db/repositories/turns';
import { assertMemoryFileName, memoryFilePath } from '../files/memoryFiles';
import { diffFile } from '../text/diff';
import { parseTimeRange } from '../text/time';
import { listCorrections } from './corrections';
import { getAuditRow, snapshotContent } from './rows';

export interface ListAuditsInput {
  sessionId?: string;
  limit?: number;
  file?: string;
  status?: string;
  source?: string;
  /** Epoch ms, an ISO date or time, or an age like 7d (inclusive). */
  since?: string | number;
  /** Same forms as since (inclusive). */
  until?: string | number;
  withDiff?: boolean;
  cursor?: string;
}

export function checkFile(file: string | undefined): MemoryFileName | undefined {
  if (file === undefined || file === '') return undefined;
  return assertMemoryFileName(file);
}

function checkLimit(limit: number | undefined, fallback: number): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new AppError('Invalid', `limit ${limit}: expected a whole number from 1 to 10000`);
  return limit;
}

function checkOneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (!value) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new AppError('Invalid', `${name} ${value}: expected one of ${allowed.join(', ')}`);
  return value as T;
}

/** Audits newest first; a rollback row names the write it undid, so two rollbacks of one file are told apart. */
export function listAudits(ctx: ServiceContext, input: ListAuditsInput = {}): Page<AuditRow> {
  const limit = checkLimit(input.limit, 10);
  const { since, until } = parseTimeRange(input, nowOf(ctx));
  const rows = listAuditsPage(ctx.db, {
    sessionId: input.sessionId || undefined,
    file: checkFile(input.file),
    status: checkOneOf<AuditStatus>(input.status, AUDIT_STATUSES, 'status'),
    source: checkOneOf<AuditSource>(input.source, AUDIT_SOURCES, 'source'),
    since,
    until,
    after: decodeCursor(input.cursor, ['number', 'number']) as [number, number] | undefined,
    limitPlusOne: limit + 1,
  });
  const page = pageOf(
    rows,
    limit,
    (r) => [r.created_at, r.rowid],
    (r) => auditFromDbRow(r, input.withDiff),
  );
  const undone = auditBriefs(
    ctx,
    page.items.flatMap((a) => (a.source === 'rollback' && a.relatedAuditId ? [a.relatedAuditId] : [])),
  );
  for (const a of page.items) {
    const u = a.source === 'rollback' && a.relatedAuditId ? undone.get(a.relatedAuditId) : undefined;
    a.undid = u ? { id: u.id, targetFile: u.targetFile, candidateFact: u.candidateFact, createdAt: u.createdAt } : null;
  }
  return page;
}

/** One audit as the contract's AuditRow. */
export function getAudit(ctx: ServiceContext, auditId: string): AuditRow {
  return auditFromDbRow(getAuditRow(ctx.db, auditId));
}

/** Whether the file on disk still holds what this write left (null when that content is unknown or the path is unsafe). */
function fileNow(ctx: ServiceContext, row: ReturnType<typeof getAuditRow>): AuditDetail['file'] {
  let exists = false;
  let matchesAfter: boolean | null = null;
  try {
    const p = memoryFilePath(ctx.workspaceDir, row.target_file);
    exists = fs.existsSync(p);
    if (row.diff !== null || row.after_snapshot_id !== null) {
      const after = snapshotContent(ctx.db, row.after_snapshot_id);
      matchesAfter = (exists ? fs.readFileSync(p, 'utf8') : null) === after;
    }
  } catch {
    /* an unsafe path: report it as unknown */
  }
  return { name: row.target_file, exists, matchesAfter };
}

export function showAudit(ctx: ServiceContext, auditId: string): AuditDetail {
  const db = ctx.db;
  const row = getAuditRow(db, auditId);
  const { rawResponse: _raw, ...decision } = (row.decision_id && findDecisionById(db, row.decision_id)) || { rawResponse: null };
  return {
    audit: {
      ...auditFromDbRow(row, true),
      diff: row.diff,
      llmModel: row.llm_model,
      latencyMs: row.llm_latency_ms,
      metadata: row.metadata ? (JSON.parse(row.metadata) as Record<string, unknown>) : null,
    },
    decision: 'id' in decision ? decision : null,
    turn: (row.turn_id && findTurnById(db, row.turn_id)) || null,
    rollback: findRollbackOfAudit(db, row.id) ?? null,
    recordsRollback: findRollbackRecordedBy(db, row.id) ?? null,
    related: row.related_audit_id ? auditFromDbRow(getAuditRow(db, row.related_audit_id)) : null,
    followUps: listFollowUpAudits(db, row.id).map((r) => auditFromDbRow(r)),
    corrections: listCorrections(ctx, { auditId: row.id }),
    file: fileNow(ctx, row),
  };
}

/** Before and after content of one write and its unified diff (computed from the snapshots when it was not stored). */
export function auditDiff(ctx: ServiceContext, auditId: string): AuditDiff {
  const row = getAuditRow(ctx.db, auditId);
  const before = snapshotContent(ctx.db, row.before_snapshot_id);
  const after = snapshotContent(ctx.db, row.after_snapshot_id);
  let diff = row.diff;
  let lineChanges = auditFromDbRow(row).lineChanges;
  if (diff === null && row.before_snapshot_id && row.after_snapshot_id) {
    const d = diffFile(row.target_file, before, after);
    diff = d.diff;
    lineChanges = d.lines;
  }
  return { auditId: row.id, fileName: row.target_file, before, after, diff, lineChanges };
}

function actorOf(r: FileVersionDbRow): string {
  const meta = r.metadata ? (JSON.parse(r.metadata) as { by?: string }) : {};
  switch (r.source) {
    case 'plugin':
      return `plugin${r.llm_model ? ` (${r.llm_model})` : ''}${r.session_id ? ` in ${r.session_id}` : ''}`;
    case 'external':
      return 'external edit';
    case 'consolidation':
      return "the plugin's consolidation";
    case 'rollback':
      return `rollback by ${meta.by ?? 'curator'}`;
    case 'retry':
      return `retry by ${meta.by ?? 'curator'}`;
    default:
      return r.source;
  }
}

function fileVersionOf(r: FileVersionDbRow): FileVersion {
  return {
    auditId: r.id,
    fileName: r.target_file,
    createdAt: r.created_at,
    source: r.source,
    status: r.status,
    actor: actorOf(r),
    reason: r.source === 'plugin' ? (r.candidate_fact ?? r.reason) : r.reason,
    sessionId: r.session_id,
    candidateFact: r.candidate_fact,
    relatedAuditId: r.related_audit_id,
    lineChanges: auditFromDbRow(r).lineChanges,
    snapshotId: r.after_snapshot_id,
    contentHash: r.content_hash,
    rolledBack: r.rb_at === null ? null : { at: r.rb_at, by: r.rb_by ?? '', reason: r.rb_reason ?? '', rollbackAuditId: r.rb_audit },
  };
}

/** Every version of one memory file, newest first, keyset-paged. */
export function fileHistory(ctx: ServiceContext, input: { file: string; limit?: number; cursor?: string }): Page<FileVersion> {
  const file = checkFile(input.file);
  if (!file) throw new AppError('Invalid', 'history: a file is required (-f USER.md)');
  const limit = checkLimit(input.limit, 20);
  const after = decodeCursor(input.cursor, ['number', 'number']) as [number, number] | undefined;
  return pageOf(listFileVersions(ctx.db, file, after, limit + 1), limit, (r) => [r.created_at, r.rowid], fileVersionOf);
}

/** How many audits carry each status, all time. */
export function auditStatusCounts(ctx: ServiceContext): AuditStatusCount[] {
  const rows = countAuditsByStatus(ctx.db);
  return AUDIT_STATUSES.map((status) => ({ status, count: rows.find((r) => r.status === status)?.n ?? 0 }));
}

/** Short descriptions of some audits by id (what a rollback undid, what a session rollback touches). */
export function auditBriefs(ctx: ServiceContext, ids: readonly string[]): Map<string, AuditBrief> {
  const out = new Map<string, AuditBrief>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += 500) for (const r of listAuditBriefs(ctx.db, unique.slice(i, i + 500))) out.set(r.id, r);
  return out;
}
