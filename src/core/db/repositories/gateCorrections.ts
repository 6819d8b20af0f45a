// Curators' corrections of gate decisions (dataset_gate_corrections): a missed write turns a
// NO_WRITE decision into "this should have been written", and retires the samples that taught otherwise.
import type { GateDecision, MemoryFileName } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

export function findDecisionForCorrection(
  db: DB,
  decisionId: string,
): { id: string; session_id: string; decision: GateDecision; created_at: number; excluded: number } | undefined {
  return stmt<{ id: string; session_id: string; decision: GateDecision; created_at: number; excluded: number }>(
    db,
    `SELECT id, session_id, decision, created_at, session_id IN (SELECT session_id FROM excluded_sessions) AS excluded
      FROM memory_gate_decisions WHERE id = ?`,
  ).get(decisionId);
}

export interface MissedWriteInsert {
  id: string;
  decisionId: string;
  decision: GateDecision;
  fact: string;
  file: MemoryFileName;
  reason: string;
  by: string;
  at: number;
}

export function insertMissedWriteCorrection(db: DB, c: MissedWriteInsert): void {
  stmt(
    db,
    `INSERT INTO dataset_gate_corrections (id, decision_id, kind, corrected_decision, corrected_fact, corrected_target_file,
          reason, corrected_by, corrected_at) VALUES (?, ?, 'missed_write', ?, ?, ?, ?, ?, ?)`,
  ).run(c.id, c.decisionId, c.decision, c.fact, c.file, c.reason, c.by, c.at);
}

/**
 * Rejects the decision's NO_WRITE samples and the samples of its earlier corrections (they now teach
 * the wrong thing), noting the correction that superseded them. Returns how many.
 */
export function rejectSamplesSupersededBy(db: DB, decisionId: string, correctionId: string, by: string, at: number): number {
  return stmt(
    db,
    `UPDATE dataset_samples SET annotation_status = 'rejected', annotated_by = @by, annotated_at = @now,
          annotation_notes = 'superseded by missed-write correction ' || @corr
        WHERE decision_id = @decision AND annotation_status <> 'rejected'
          AND (source_key = 'pos:nowrite:' || @decision OR source_key = 'neg:later:' || @decision
            OR json_extract(labels, '$.gateCorrectionId') IN (SELECT id FROM dataset_gate_corrections WHERE decision_id = @decision AND id <> @corr))`,
  ).run({ by, now: at, corr: correctionId, decision: decisionId }).changes;
}
