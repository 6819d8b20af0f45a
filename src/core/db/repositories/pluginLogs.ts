// The plugin-log importer's rows beyond turns, decisions and audits (migration 0110): lines already applied,
// failed gate runs, the audit log's lines waiting to be joined to a write outcome, and consolidation runs
// with the external changes they claim.
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface GateFailureParams {
  id: string;
  turnId: string | null;
  sessionId: string;
  kind: string;
  reason: string | null;
  source: string;
  createdAt: number;
}

export interface GuardianLogLineRow {
  id: string;
  targetFile: string | null;
  reason: string | null;
  candidateFact: string | null;
  file: string;
  line: number;
}

export interface ConsolidationRunRow {
  id: string;
  at: number;
  files: string;
  claimed: string;
}

/** False when the line was applied before. */
export function markPluginLogEvent(db: DB, id: string): boolean {
  return stmt(db, 'INSERT OR IGNORE INTO plugin_log_events (id) VALUES (?)').run(id).changes > 0;
}

export function insertGateFailureIfNew(db: DB, row: GateFailureParams): boolean {
  return (
    stmt(
      db,
      `INSERT OR IGNORE INTO memory_gate_failures (id, turn_id, session_id, kind, reason, source, created_at)
     VALUES (@id, @turnId, @sessionId, @kind, @reason, @source, @createdAt)`,
    ).run(row).changes > 0
  );
}

/**
 * A turn another source made (OpenClaw transcripts, the recorder; never a snapshot of the logs) of this
 * exchange. A transcript turn may hold several replies of one exchange: the exact reply, then the nearest, wins.
 */
export function findTranscriptTurn(
  db: DB,
  p: { session: string; from: number; to: number; user: string; reply: string; at: number },
): string | undefined {
  return stmt(
    db,
    `SELECT id FROM conversation_turns WHERE session_id = @session AND created_at BETWEEN @from AND @to
       AND json_extract(agent_metadata, '$.snapshotId') IS NULL
       AND user_message_content = @user AND instr(agent_message_content, @reply) > 0
     ORDER BY agent_message_content = @reply DESC, abs(created_at - @at) LIMIT 1`,
  )
    .pluck()
    .get(p) as string | undefined;
}

export function insertConsolidationRunIfNew(db: DB, id: string, at: number, files: string, sourceFile: string): boolean {
  return (
    stmt(db, 'INSERT OR IGNORE INTO consolidation_runs (id, at, files, source_file) VALUES (?, ?, ?, ?)').run(id, at, files, sourceFile)
      .changes > 0
  );
}

export function listUnfinishedConsolidationRuns(db: DB): ConsolidationRunRow[] {
  return stmt<ConsolidationRunRow>(
    db,
    'SELECT id, at, files, claimed FROM consolidation_runs WHERE json_array_length(claimed) < json_array_length(files) ORDER BY at',
  ).all();
}

export function saveConsolidationClaimed(db: DB, runId: string, claimed: string): void {
  stmt(db, 'UPDATE consolidation_runs SET claimed = ? WHERE id = ?').run(claimed, runId);
}

/** The first external change of a file at or after a time that no one has explained yet. */
export function findFirstUnexplainedExternalWrite(db: DB, file: string, from: number): { id: string; createdAt: number } | undefined {
  return stmt<{ id: string; createdAt: number }>(
    db,
    `SELECT id, created_at AS createdAt FROM write_guardian_audit
     WHERE target_file = ? AND source = 'external' AND created_at >= ?
       AND json_extract(coalesce(metadata, '{}'), '$.origin') IS NULL
     ORDER BY created_at, rowid LIMIT 1`,
  ).get(file, from);
}

export function pluginWroteFileBetween(db: DB, file: string, after: number, before: number): boolean {
  return (
    stmt(
      db,
      `SELECT 1 FROM write_guardian_audit WHERE target_file = ? AND source = 'plugin' AND status = 'written' AND created_at > ? AND created_at < ? LIMIT 1`,
    )
      .pluck()
      .get(file, after, before) !== undefined
  );
}

export function relabelAsConsolidation(db: DB, auditId: string, runId: string): void {
  stmt(
    db,
    `UPDATE write_guardian_audit SET source = 'consolidation', reason = 'rewritten by the plugin''s scheduled consolidation',
       metadata = json_patch(coalesce(metadata, '{}'), json_object('origin', 'consolidation', 'consolidationRun', ?))
     WHERE id = ?`,
  ).run(runId, auditId);
}

/** Returns 1 when the line is new. */
export function insertGuardianLogLineIfNew(
  db: DB,
  l: {
    id: string;
    at: number;
    decision: string;
    status: string;
    targetFile: string | null;
    reason: string | null;
    fact: string | null;
    file: string;
    line: number;
  },
): number {
  return stmt(
    db,
    `INSERT OR IGNORE INTO guardian_log_lines (id, at, decision, status, target_file, reason, candidate_fact, source_file, line_number)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(l.id, l.at, l.decision, l.status, l.targetFile, l.reason, l.fact, l.file, l.line).changes;
}

/** The latest audit-log line of this decision and status in the window that no write outcome claimed yet. */
export function findUnclaimedGuardianLogLine(
  db: DB,
  decision: string,
  status: string,
  from: number,
  to: number,
): GuardianLogLineRow | undefined {
  return stmt<GuardianLogLineRow>(
    db,
    `SELECT id, target_file AS targetFile, reason, candidate_fact AS candidateFact, source_file AS file, line_number AS line
       FROM guardian_log_lines WHERE decision = ? AND status = ? AND at BETWEEN ? AND ? AND audit_id IS NULL
       ORDER BY at DESC LIMIT 1`,
  ).get(decision, status, from, to);
}

export function claimGuardianLogLine(db: DB, lineId: string, auditId: string): void {
  stmt(db, 'UPDATE guardian_log_lines SET audit_id = ? WHERE id = ?').run(auditId, lineId);
}
