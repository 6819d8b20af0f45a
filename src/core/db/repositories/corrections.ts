// behavior_corrections: the curator's verdicts on what write_guardian should have done.
import type { CorrectionDto } from '../../../shared/contract/guardian';
import type { DB } from '../connection';
import { stmt } from '../statements';

const COLUMNS = `id, audit_id AS auditId, original_status AS originalStatus, original_candidate_fact AS originalCandidateFact,
  original_target_file AS originalTargetFile, corrected_status AS correctedStatus, corrected_candidate_fact AS correctedCandidateFact,
  corrected_target_file AS correctedTargetFile, correction_reason AS correctionReason, apply_to_future AS applyToFuture,
  correction_pattern AS correctionPattern, corrected_by AS correctedBy, corrected_at AS correctedAt, retry_audit_id AS retryAuditId`;

const fromRow = (r: CorrectionDto): CorrectionDto => ({ ...r, applyToFuture: Boolean(r.applyToFuture) });

export interface CorrectionInsert {
  id: string;
  auditId: string;
  originalStatus: string;
  originalCandidateFact: string | null;
  originalTargetFile: string | null;
  correctedStatus: 'written' | 'refused';
  correctedCandidateFact: string | null;
  correctedTargetFile: string | null;
  correctionReason: string;
  applyToFuture: boolean;
  correctionPattern: string | null;
  correctedBy: string;
  correctedAt: number;
  retryAuditId: string | null;
}

export function insertCorrection(db: DB, c: CorrectionInsert): void {
  stmt(
    db,
    `INSERT INTO behavior_corrections (id, audit_id, original_status, original_candidate_fact, original_target_file, corrected_status,
      corrected_candidate_fact, corrected_target_file, correction_reason, apply_to_future, correction_pattern, corrected_by, corrected_at, retry_audit_id)
     VALUES (@id, @auditId, @originalStatus, @originalCandidateFact, @originalTargetFile, @correctedStatus, @correctedCandidateFact,
      @correctedTargetFile, @correctionReason, @applyToFuture, @correctionPattern, @correctedBy, @correctedAt, @retryAuditId)`,
  ).run({ ...c, applyToFuture: c.applyToFuture ? 1 : 0 });
}

export function findCorrectionById(db: DB, id: string): CorrectionDto | undefined {
  const r = stmt<CorrectionDto>(db, `SELECT ${COLUMNS} FROM behavior_corrections WHERE id = ?`).get(id);
  return r && fromRow(r);
}

/** Corrections newest first, of one audit and/or only the apply-to-future ones. */
export function listCorrectionRows(db: DB, f: { auditId?: string; applyToFuture?: boolean; limit: number }): CorrectionDto[] {
  return stmt<CorrectionDto>(
    db,
    `SELECT ${COLUMNS} FROM behavior_corrections
     WHERE (@auditId IS NULL OR audit_id = @auditId) AND (@future IS NULL OR apply_to_future = @future)
     ORDER BY corrected_at DESC, id DESC LIMIT @limit`,
  )
    .all({ auditId: f.auditId ?? null, future: f.applyToFuture === undefined ? null : f.applyToFuture ? 1 : 0, limit: f.limit })
    .map(fromRow);
}

/** The newest retry of a write that no correction is linked to yet. */
export function findUnlinkedRetry(db: DB, auditId: string): string | undefined {
  return stmt(
    db,
    `SELECT a.id FROM write_guardian_audit a WHERE a.related_audit_id = ? AND a.source = 'retry'
       AND NOT EXISTS (SELECT 1 FROM behavior_corrections c WHERE c.retry_audit_id = a.id)
     ORDER BY a.created_at DESC, a.rowid DESC LIMIT 1`,
  )
    .pluck()
    .get(auditId) as string | undefined;
}

/** The newest correction of a write that says it should have been written: its fact and file for a retry. */
export function findLatestWrittenCorrection(db: DB, auditId: string): { fact: string | null; file: string | null; id: string } | undefined {
  return stmt<{ fact: string | null; file: string | null; id: string }>(
    db,
    `SELECT id, corrected_candidate_fact AS fact, corrected_target_file AS file FROM behavior_corrections
     WHERE audit_id = ? AND corrected_status = 'written' ORDER BY corrected_at DESC, id DESC LIMIT 1`,
  ).get(auditId);
}
