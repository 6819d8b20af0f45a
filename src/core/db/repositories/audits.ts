// write_guardian audits read as the contract's AuditRow: the write outcomes a decision or a timeline shows.
import type { AuditRow } from '../../../shared/contract/dto';
import type { AuditSource, AuditStatus, MemoryFileName } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

interface WriteOutcomeDbRow {
  id: string;
  decision_id: string | null;
  turn_id: string | null;
  session_id: string | null;
  target_file: MemoryFileName;
  candidate_fact: string | null;
  status: AuditStatus;
  source: AuditSource;
  reason: string | null;
  lines_added: number | null;
  lines_removed: number | null;
  lines_modified: number | null;
  created_at: number;
  diff?: string | null;
}

const WRITE_COLUMNS = `id, decision_id, turn_id, session_id, target_file, candidate_fact, status, source, reason,
  lines_added, lines_removed, lines_modified, created_at`;

function writeOutcomeFromRow(r: WriteOutcomeDbRow): AuditRow {
  const counted = r.lines_added !== null || r.lines_removed !== null || r.lines_modified !== null;
  return {
    id: r.id,
    decisionId: r.decision_id,
    turnId: r.turn_id,
    sessionId: r.session_id,
    targetFile: r.target_file,
    candidateFact: r.candidate_fact,
    status: r.status,
    source: r.source,
    reason: r.reason,
    lineChanges: counted ? { added: r.lines_added ?? 0, removed: r.lines_removed ?? 0, modified: r.lines_modified ?? 0 } : null,
    createdAt: r.created_at,
    ...(r.diff !== undefined ? { diff: r.diff } : {}),
  };
}

/** The writes a decision led to, in the order they happened; with their diffs when asked. */
export function listWritesOfDecision(db: DB, decisionId: string, withDiff = false): AuditRow[] {
  return stmt<WriteOutcomeDbRow>(db, `SELECT ${WRITE_COLUMNS}${withDiff ? ', diff' : ''} FROM write_guardian_audit WHERE decision_id = ? ORDER BY rowid`)
    .all(decisionId)
    .map(writeOutcomeFromRow);
}

/** The writes of several turns at once (one indexed probe per turn). */
export function listWritesOfTurns(db: DB, turnIds: string[]): AuditRow[] {
  if (!turnIds.length) return [];
  return stmt<WriteOutcomeDbRow>(
    db,
    `SELECT ${WRITE_COLUMNS} FROM write_guardian_audit WHERE turn_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, rowid`,
  )
    .all(JSON.stringify(turnIds))
    .map(writeOutcomeFromRow);
}
