// Reads and review-time writes of dataset samples (collection's inserts are in collect.ts): the
// stored row, the columns every reader selects, and the review, stats and queue queries.
import type { AnnotationStatus, SampleType } from '../../../shared/domain';

export interface SampleRow {
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

