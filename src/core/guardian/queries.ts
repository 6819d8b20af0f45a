// Audit queries: list, show, diff and the history of one file. Lists are keyset-paged on
// (created_at, rowid), which every audit index carries, so a page costs an index range scan.
import { AUDIT_SOURCES, AUDIT_STATUSES, type AuditSource, type AuditStatus, type LineChanges, type MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { findTurnById } from '../db/repositories/turns';
import type { TurnDto } from '../../shared/contract/records';
import fs from 'node:fs';
import { assertMemoryFileName, memoryFilePath } from '../files/memoryFiles';
import { nowOf, type ServiceContext } from '../context';
import { diffFile } from '../text/diff';
import { parseTime } from '../text/time';
import { decodeCursor, pageOf } from '../db/paging';
import {
  AUDIT_COLUMNS,
  ROLLBACK_COLUMNS,
  auditFromRow,
  getAuditRow,
  snapshotContent,
  type AuditRow,
  type AuditSummary,
  type RollbackRecord,
} from './rows';
import { listCorrections, type CorrectionRecord } from './corrections';

export interface ListAuditsInput {
  sessionKey?: string;
  limit?: number;
  file?: string;
  status?: string;
  source?: string;
  since?: string | number;
  until?: string | number;
  withDiff?: boolean;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export function checkFile(file: string | undefined): MemoryFileName | undefined {
  if (file === undefined || file === '') return undefined;
  return assertMemoryFileName(file);
}

function checkLimit(limit: number | undefined, fallback: number): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new AppError('Invalid', `limit ${limit}: expected a whole number from 1 to 10000`);
  return limit;
}

export function listAudits(ctx: ServiceContext, input: ListAuditsInput = {}): Page<AuditSummary> {
  const limit = checkLimit(input.limit, 10);
  const now = nowOf(ctx);
  const where: string[] = [];
  const params: unknown[] = [];
  if (input.sessionKey) {
    where.push('a.session_id = ?');
    params.push(input.sessionKey);
  }
  const file = checkFile(input.file);
  if (file) {
    where.push('a.target_file = ?');
    params.push(file);
  }
  if (input.status) {
    if (!(AUDIT_STATUSES as readonly string[]).includes(input.status)) throw new AppError('Invalid', `status ${input.status}: expected one of ${AUDIT_STATUSES.join(', ')}`);
    where.push('a.status = ?');
    params.push(input.status as AuditStatus);
  }
  if (input.source) {
    if (!(AUDIT_SOURCES as readonly string[]).includes(input.source)) throw new AppError('Invalid', `source ${input.source}: expected one of ${AUDIT_SOURCES.join(', ')}`);
    where.push('a.source = ?');
    params.push(input.source as AuditSource);
  }
  const since = parseTime(input.since, 'since', now);
  const until = parseTime(input.until, 'until', now);
  if (since !== undefined) {
    where.push('a.created_at >= ?');
    params.push(since);
  }
  if (until !== undefined) {
    where.push('a.created_at <= ?');
    params.push(until);
  }
  const cursor = decodeCursor(input.cursor, ['number', 'number']);
  if (cursor) {
    where.push('(a.created_at < ? OR (a.created_at = ? AND a.rowid < ?))');
    params.push(cursor[0], cursor[0], cursor[1]);
  }
  const sql = `SELECT ${AUDIT_COLUMNS} FROM write_guardian_audit a ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY a.created_at DESC, a.rowid DESC LIMIT ?`;
  const rows = ctx.db.prepare(sql).all(...params, limit + 1) as AuditRow[];
  return pageOf(rows, limit, (r) => [r.created_at, r.rowid], (r) => auditFromRow(r, input.withDiff));
}

export interface DecisionInfo {
  id: string;
  decision: string;
  reason: string;
  candidateFact: string | null;
  llmModel: string;
  llmLatencyMs: number | null;
  createdAt: number;
}

export interface AuditDetail {
  audit: AuditSummary & { diff: string | null };
  decision: DecisionInfo | null;
  turn: TurnDto | null;
  /** The rollback that undid this audit, if any. */
  rollback: RollbackRecord | null;
  /** When this audit is itself a rollback's write: the rollback it records. */
  recordsRollback: RollbackRecord | null;
  related: AuditSummary | null;
  /** Later workbench writes that point back at this one (retries, rollbacks). */
  followUps: AuditSummary[];
  corrections: CorrectionRecord[];
  /** Where the file stands now relative to this write. */
  file: { name: MemoryFileName; exists: boolean; matchesAfter: boolean | null };
}

export function showAudit(ctx: ServiceContext, auditId: string): AuditDetail {
  const row = getAuditRow(ctx.db, auditId);
  const db = ctx.db;
  const decision = row.decision_id
    ? (db.prepare(`SELECT id, decision, reason, candidate_fact AS candidateFact, llm_model AS llmModel, llm_latency_ms AS llmLatencyMs,
        created_at AS createdAt FROM memory_gate_decisions WHERE id = ?`).get(row.decision_id) as DecisionInfo | undefined) ?? null
    : null;
  const rollback = (db.prepare(`SELECT ${ROLLBACK_COLUMNS} FROM rollbacks WHERE audit_id = ?`).get(row.id) as RollbackRecord | undefined) ?? null;
  const recordsRollback = (db.prepare(`SELECT ${ROLLBACK_COLUMNS} FROM rollbacks WHERE rollback_audit_id = ?`).get(row.id) as RollbackRecord | undefined) ?? null;
  const related = row.related_audit_id ? auditFromRow(getAuditRow(db, row.related_audit_id)) : null;
  const followUps = (db.prepare(`SELECT ${AUDIT_COLUMNS} FROM write_guardian_audit a WHERE a.related_audit_id = ? ORDER BY a.created_at, a.rowid`).all(row.id) as AuditRow[]).map((r) => auditFromRow(r));
  let exists = false;
  let matchesAfter: boolean | null = null;
  try {
    const p = memoryFilePath(ctx.workspaceDir, row.target_file);
    exists = fs.existsSync(p);
    if (row.diff !== null || row.after_snapshot_id !== null) {
      const after = snapshotContent(db, row.after_snapshot_id);
      const disk = exists ? fs.readFileSync(p, 'utf8') : null;
      matchesAfter = disk === after;
    }
  } catch {
    /* an unsafe path: report it as unknown */
  }
  return {
    audit: { ...auditFromRow(row), diff: row.diff },
    decision,
    turn: (row.turn_id && findTurnById(db, row.turn_id)) || null,
    rollback,
    recordsRollback,
    related,
    followUps,
    corrections: listCorrections(ctx, { auditId: row.id }),
    file: { name: row.target_file, exists, matchesAfter },
  };
}

export interface AuditDiff {
  auditId: string;
  targetFile: MemoryFileName;
  diff: string | null;
  lines: LineChanges | null;
}

/** The unified diff of one audit; null when the write's content was not recorded. */
export function auditDiff(ctx: ServiceContext, auditId: string): AuditDiff {
  const row = getAuditRow(ctx.db, auditId);
  let diff = row.diff;
  let lines = auditFromRow(row).lines;
  if (diff === null && row.before_snapshot_id && row.after_snapshot_id) {
    const d = diffFile(row.target_file, snapshotContent(ctx.db, row.before_snapshot_id), snapshotContent(ctx.db, row.after_snapshot_id));
    diff = d.diff;
    lines = d.lines;
  }
  return { auditId: row.id, targetFile: row.target_file, diff, lines };
}

export interface HistoryEntry {
  auditId: string;
  createdAt: number;
  source: AuditSource;
  status: AuditStatus;
  /** Who made the change: the plugin (with session and model), an external edit, or the curator who rolled back or retried. */
  who: string;
  /** Why: the fact written, the rollback or retry reason. */
  why: string | null;
  sessionId: string | null;
  candidateFact: string | null;
  relatedAuditId: string | null;
  lines: LineChanges | null;
  afterSnapshotId: string | null;
  contentHash: string | null;
  /** Set when this version was later rolled back. */
  rolledBack: { at: number; by: string; reason: string; rollbackAuditId: string | null } | null;
}

interface HistoryRow extends AuditRow {
  content_hash: string | null;
  rb_at: number | null;
  rb_by: string | null;
  rb_reason: string | null;
  rb_audit: string | null;
}

function whoOf(r: HistoryRow): string {
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

/** Every version of one memory file, newest first, keyset-paged. */
export function fileHistory(ctx: ServiceContext, input: { file: string; limit?: number; cursor?: string }): Page<HistoryEntry> {
  const file = checkFile(input.file);
  if (!file) throw new AppError('Invalid', 'history: a file is required (-f USER.md)');
  const limit = checkLimit(input.limit, 20);
  const cursor = decodeCursor(input.cursor, ['number', 'number']);
  const rows = ctx.db
    .prepare(
      `SELECT ${AUDIT_COLUMNS}, s.content_hash, r.rolled_back_at AS rb_at, r.rolled_back_by AS rb_by, r.reason AS rb_reason, r.rollback_audit_id AS rb_audit
       FROM write_guardian_audit a
       LEFT JOIN file_snapshots s ON s.id = a.after_snapshot_id
       LEFT JOIN rollbacks r ON r.audit_id = a.id
       WHERE a.target_file = ? AND a.status IN ('written', 'rolled_back')
         ${cursor ? 'AND (a.created_at < ? OR (a.created_at = ? AND a.rowid < ?))' : ''}
       ORDER BY a.created_at DESC, a.rowid DESC LIMIT ?`,
    )
    .all(file, ...(cursor ? [cursor[0], cursor[0], cursor[1]] : []), limit + 1) as HistoryRow[];
  return pageOf(rows, limit, (r) => [r.created_at, r.rowid], (r) => ({
      auditId: r.id,
      createdAt: r.created_at,
      source: r.source,
      status: r.status,
      who: whoOf(r),
      why: r.source === 'plugin' ? r.candidate_fact ?? r.reason : r.reason,
      sessionId: r.session_id,
      candidateFact: r.candidate_fact,
      relatedAuditId: r.related_audit_id,
      lines: auditFromRow(r).lines,
      afterSnapshotId: r.after_snapshot_id,
      contentHash: r.content_hash,
      rolledBack: r.rb_at === null ? null : { at: r.rb_at, by: r.rb_by ?? '', reason: r.rb_reason ?? '', rollbackAuditId: r.rb_audit },
    }));
}

/** How many audits carry each status, all time. Counted from the (status, created_at) index alone. */
export function auditStatusCounts(ctx: ServiceContext): Array<{ status: AuditStatus; count: number }> {
  const rows = ctx.db.prepare('SELECT status, count(*) AS n FROM write_guardian_audit GROUP BY status').all() as Array<{ status: AuditStatus; n: number }>;
  return AUDIT_STATUSES.map((status) => ({ status, count: rows.find((r) => r.status === status)?.n ?? 0 }));
}

export interface AuditBrief {
  id: string;
  targetFile: MemoryFileName;
  candidateFact: string | null;
  status: AuditStatus;
  createdAt: number;
}

/** Short descriptions of some audits by id (what a rollback undid, what a session rollback touches). */
export function auditBriefs(ctx: ServiceContext, ids: readonly string[]): Map<string, AuditBrief> {
  const out = new Map<string, AuditBrief>();
  const unique = [...new Set(ids)];
  const stmt = ctx.db.prepare(
    `SELECT id, target_file AS targetFile, candidate_fact AS candidateFact, status, created_at AS createdAt
     FROM write_guardian_audit WHERE id IN (SELECT value FROM json_each(?))`,
  );
  // json_each keeps one statement for any number of ids (no SQL built from input).
  for (let i = 0; i < unique.length; i += 500) {
    for (const r of stmt.all(JSON.stringify(unique.slice(i, i + 500))) as AuditBrief[]) out.set(r.id, r);
  }
  return out;
}
