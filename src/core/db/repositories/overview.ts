// Workspace-wide counts for the stats screen.
import type { AuditStatus, GateDecision } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface WorkspaceTotals {
  sessions: number;
  turns: number;
  decisions: number;
  writes: number;
  snapshots: number;
}

export function countWorkspaceRows(db: DB): WorkspaceTotals {
  return stmt<WorkspaceTotals>(
    db,
    `SELECT (SELECT count(*) FROM sessions) AS sessions, (SELECT count(*) FROM conversation_turns) AS turns,
       (SELECT count(*) FROM memory_gate_decisions) AS decisions, (SELECT count(*) FROM write_guardian_audit) AS writes,
       (SELECT count(*) FROM file_snapshots) AS snapshots`,
  ).get() as WorkspaceTotals;
}

/** created_at of the newest decision or write, whichever is later; null in an empty workspace. */
export function newestRecordTime(db: DB): number | null {
  return stmt(
    db,
    `SELECT nullif(max(coalesce((SELECT max(created_at) FROM memory_gate_decisions), -1),
                       coalesce((SELECT max(created_at) FROM write_guardian_audit), -1)), -1)`,
  )
    .pluck()
    .get() as number | null;
}

export function countDecisionsPerDay(db: DB, since: number, until: number): Array<{ date: string; decision: GateDecision; n: number }> {
  return stmt<{ date: string; decision: GateDecision; n: number }>(
    db,
    `SELECT date(created_at / 1000, 'unixepoch') AS date, decision, COUNT(*) AS n FROM memory_gate_decisions
     WHERE created_at >= ? AND created_at < ? GROUP BY 1, 2 ORDER BY 1`,
  ).all(since, until);
}

export function countWritesByStatus(db: DB, since: number, until: number): Array<{ status: AuditStatus; n: number }> {
  return stmt<{ status: AuditStatus; n: number }>(
    db,
    'SELECT status, COUNT(*) AS n FROM write_guardian_audit WHERE created_at >= ? AND created_at < ? GROUP BY status',
  ).all(since, until);
}
