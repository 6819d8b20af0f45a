// Row shapes of the guardian tables and their mapping to plain data for the CLI, IPC and UI.
import type { RollbackDto } from '../../shared/contract/dto';
import type { AuditSource, AuditStatus, LineChanges, MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { DB } from '../db/connection';

export interface AuditRow {
  rowid: number;
  id: string;
  decision_id: string | null;
  turn_id: string | null;
  session_id: string | null;
  target_file: MemoryFileName;
  candidate_fact: string | null;
  before_snapshot_id: string | null;
  after_snapshot_id: string | null;
  diff: string | null;
  lines_added: number | null;
  lines_removed: number | null;
  lines_modified: number | null;
  status: AuditStatus;
  reason: string | null;
  llm_model: string | null;
  llm_latency_ms: number | null;
  agent_steps: number | null;
  source: AuditSource;
  related_audit_id: string | null;
  metadata: string | null;
  created_at: number;
}

export interface AuditSummary {
  id: string;
  createdAt: number;
  sessionId: string | null;
  turnId: string | null;
  decisionId: string | null;
  targetFile: MemoryFileName;
  candidateFact: string | null;
  status: AuditStatus;
  source: AuditSource;
  reason: string | null;
  relatedAuditId: string | null;
  beforeSnapshotId: string | null;
  afterSnapshotId: string | null;
  lines: LineChanges | null;
  llmModel: string | null;
  llmLatencyMs: number | null;
  agentSteps: number | null;
  metadata: Record<string, unknown> | null;
  /** Whether both the before and after content are known (false for writes imported from logs). */
  contentKnown: boolean;
  diff?: string | null;
}

export const AUDIT_COLUMNS = `a.rowid AS rowid, a.id, a.decision_id, a.turn_id, a.session_id, a.target_file, a.candidate_fact,
  a.before_snapshot_id, a.after_snapshot_id, a.diff, a.lines_added, a.lines_removed, a.lines_modified, a.status, a.reason,
  a.llm_model, a.llm_latency_ms, a.agent_steps, a.source, a.related_audit_id, a.metadata, a.created_at`;

export function auditFromRow(r: AuditRow, withDiff = false): AuditSummary {
  const s: AuditSummary = {
    id: r.id,
    createdAt: r.created_at,
    sessionId: r.session_id,
    turnId: r.turn_id,
    decisionId: r.decision_id,
    targetFile: r.target_file,
    candidateFact: r.candidate_fact,
    status: r.status,
    source: r.source,
    reason: r.reason,
    relatedAuditId: r.related_audit_id,
    beforeSnapshotId: r.before_snapshot_id,
    afterSnapshotId: r.after_snapshot_id,
    lines: r.lines_added === null ? null : { added: r.lines_added, removed: r.lines_removed ?? 0, modified: r.lines_modified ?? 0 },
    llmModel: r.llm_model,
    llmLatencyMs: r.llm_latency_ms,
    agentSteps: r.agent_steps,
    metadata: r.metadata ? (JSON.parse(r.metadata) as Record<string, unknown>) : null,
    contentKnown: r.diff !== null || (r.before_snapshot_id !== null && r.after_snapshot_id !== null),
  };
  if (withDiff) s.diff = r.diff;
  return s;
}

export function getAuditRow(db: DB, id: string): AuditRow {
  if (typeof id !== 'string' || !id.trim()) throw new AppError('Invalid', 'audit id: expected an id');
  const row = db.prepare(`SELECT ${AUDIT_COLUMNS} FROM write_guardian_audit a WHERE a.id = ?`).get(id.trim()) as AuditRow | undefined;
  if (!row) throw new AppError('NotFound', `audit ${id} not found`);
  return row;
}

export function snapshotContent(db: DB, id: string | null): string | null {
  if (!id) return null;
  const content = db.prepare('SELECT content FROM file_snapshots WHERE id = ?').pluck().get(id) as string | undefined;
  if (content === undefined) throw new AppError('Internal', `snapshot ${id} is missing`);
  return content;
}

/** A rollbacks row: the contract's RollbackDto plus the backup snapshot kept of the file. */
export interface RollbackRecord extends RollbackDto {
  backupSnapshotId: string | null;
}

export const ROLLBACK_COLUMNS = `id, audit_id AS auditId, rolled_back_at AS rolledBackAt, rolled_back_by AS rolledBackBy, reason,
  restored_snapshot_id AS restoredSnapshotId, previous_status AS previousStatus, backup_snapshot_id AS backupSnapshotId,
  mode, rollback_audit_id AS rollbackAuditId`;

