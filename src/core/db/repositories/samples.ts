// Reads and review-time writes of dataset samples (collection's inserts are in collect.ts): the
// stored row, the columns every reader selects, and the review, stats and queue queries.
import type { AnnotationStatus, SampleType } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface StoredSampleRow {
  id: string;
  sample_type: SampleType;
  turn_id: string | null;
  decision_id: string | null;
  audit_id: string | null;
  correction_id: string | null;
  session_id: string;
  content: string;
  quality_score: number | null;
  quality_factors: string | null;
  annotation_status: AnnotationStatus;
  annotated_by: string | null;
  annotated_at: number | null;
  annotation_notes: string | null;
  privacy_checked: number;
  contains_pii: number;
  pii_redacted_content: string | null;
  pii_spans: string | null;
  feedback_signals: string | null;
  fingerprint: string | null;
  cluster_id: string | null;
  labels: string | null;
  source_key: string;
  collection_strategy: string | null;
  created_at: number;
}

/** Columns every reader selects (never the MinHash blob). */
export const SAMPLE_COLUMNS = `id, sample_type, turn_id, decision_id, audit_id, correction_id, session_id, content, quality_score,
  quality_factors, annotation_status, annotated_by, annotated_at, annotation_notes, privacy_checked, contains_pii,
  pii_redacted_content, pii_spans, feedback_signals, fingerprint, cluster_id, labels, source_key, collection_strategy, created_at`;

export interface SampleListFilter {
  status?: AnnotationStatus;
  type?: SampleType;
  qualityAbove?: number;
  sessionId?: string;
  /** Keyset position (created_at, id) of the previous page's last row. */
  after?: [number, string];
}

/** Newest first, paged by (created_at, id); samples of excluded sessions are left out. */
export function listSamplesPage(db: DB, f: SampleListFilter, limit: number): StoredSampleRow[] {
  const where = ['session_id NOT IN (SELECT session_id FROM excluded_sessions)'];
  const params: Record<string, unknown> = { limit };
  if (f.status) {
    where.push('annotation_status = @status');
    params.status = f.status;
  }
  if (f.type) {
    where.push('sample_type = @type');
    params.type = f.type;
  }
  if (f.qualityAbove !== undefined) {
    where.push('quality_score >= @quality');
    params.quality = f.qualityAbove;
  }
  if (f.sessionId) {
    where.push('session_id = @session');
    params.session = f.sessionId;
  }
  if (f.after) {
    where.push('(created_at < @cAt OR (created_at = @cAt AND id < @cId))');
    params.cAt = f.after[0];
    params.cId = f.after[1];
  }
  return stmt<StoredSampleRow>(
    db,
    `SELECT ${SAMPLE_COLUMNS} FROM dataset_samples WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT @limit`,
  ).all(params);
}

export function findSampleById(db: DB, id: string): StoredSampleRow | undefined {
  return stmt<StoredSampleRow>(db, `SELECT ${SAMPLE_COLUMNS} FROM dataset_samples WHERE id = ?`).get(id);
}

/** A sample with its reject reason: what a review action records as the state it replaces. */
export type ReviewedSampleRow = StoredSampleRow & { reject_reason: string | null };

export function findSampleForReview(db: DB, id: string): ReviewedSampleRow | undefined {
  return stmt<ReviewedSampleRow>(db, `SELECT ${SAMPLE_COLUMNS}, reject_reason FROM dataset_samples WHERE id = ?`).get(id);
}

export function updateSampleStatus(
  db: DB,
  s: { id: string; status: AnnotationStatus; by: string; at: number; notes: string | null; reason: string | null },
): void {
  stmt(
    db,
    `UPDATE dataset_samples SET annotation_status = @status, annotated_by = @by, annotated_at = @at,
        annotation_notes = coalesce(@notes, annotation_notes), reject_reason = @reason WHERE id = @id`,
  ).run(s);
}

export interface SampleContentEdit {
  id: string;
  content: string;
  spans: string | null;
  redacted: string | null;
  containsPii: number;
  checked: number;
  fp: string;
  by: string;
  at: number;
  notes: string | null;
}

export function updateSampleContent(db: DB, e: SampleContentEdit): void {
  stmt(
    db,
    `UPDATE dataset_samples SET content = @content, pii_spans = @spans, pii_redacted_content = @redacted,
            contains_pii = @containsPii, privacy_checked = @checked, fingerprint = @fp, annotated_by = @by, annotated_at = @at,
            annotation_notes = coalesce(@notes, annotation_notes) WHERE id = @id`,
  ).run(e);
}

export interface SampleRestore {
  id: string;
  status: AnnotationStatus;
  by: string | null;
  at: number | null;
  notes: string | null;
  /** Null keeps the current content (and fingerprint). */
  content: string | null;
  fingerprint: string | null;
  reason: string | null;
  /** 1: the PII columns return to the values given too. */
  restorePii: number;
  spans: string | null;
  redacted: string | null;
  containsPii: number;
}

/** Puts back the state a review action replaced. */
export function restoreSampleState(db: DB, r: SampleRestore): void {
  stmt(
    db,
    `UPDATE dataset_samples SET annotation_status = @status, annotated_by = @by, annotated_at = @at, annotation_notes = @notes,
          content = coalesce(@content, content), fingerprint = coalesce(@fingerprint, fingerprint), reject_reason = @reason,
          pii_spans = CASE WHEN @restorePii THEN @spans ELSE pii_spans END,
          pii_redacted_content = CASE WHEN @restorePii THEN @redacted ELSE pii_redacted_content END,
          contains_pii = CASE WHEN @restorePii THEN @containsPii ELSE contains_pii END
         WHERE id = @id`,
  ).run(r);
}
