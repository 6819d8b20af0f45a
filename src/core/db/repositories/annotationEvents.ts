// Review actions (dataset_annotation_events), each saved with the sample state it replaced so the
// last one can be undone after a reload or a restart.
import type { AnnotationStatus } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface AnnotationEventInsert {
  sampleId: string;
  action: string;
  actor: string;
  notes: string | null;
  detail: string | null;
  status: AnnotationStatus;
  by: string | null;
  at: number | null;
  prevNotes: string | null;
  content: string | null;
  spans: string | null;
  redacted: string | null;
  containsPii: number;
  fingerprint: string | null;
  now: number;
  batchId: string | null;
  reason: string | null;
  prevReason: string | null;
}

export function insertAnnotationEvent(db: DB, e: AnnotationEventInsert): void {
  stmt(
    db,
    `INSERT INTO dataset_annotation_events (sample_id, action, actor, notes, detail, prev_status, prev_annotated_by,
        prev_annotated_at, prev_notes, prev_content, prev_pii_spans, prev_pii_redacted_content, prev_contains_pii,
        prev_fingerprint, created_at, batch_id, reason, prev_reject_reason)
       VALUES (@sampleId, @action, @actor, @notes, @detail, @status, @by, @at, @prevNotes, @content, @spans, @redacted,
        @containsPii, @fingerprint, @now, @batchId, @reason, @prevReason)`,
  ).run(e);
}

export interface AnnotationEventRow {
  seq: number;
  sample_id: string;
  action: string;
  detail: string | null;
  batch_id: string | null;
  prev_status: AnnotationStatus;
  prev_annotated_by: string | null;
  prev_annotated_at: number | null;
  prev_notes: string | null;
  prev_content: string | null;
  prev_pii_spans: string | null;
  prev_pii_redacted_content: string | null;
  prev_contains_pii: number | null;
  prev_fingerprint: string | null;
  prev_reject_reason: string | null;
}

/** The curator's most recent action not undone yet. */
export function findLastOpenEvent(db: DB, actor: string): AnnotationEventRow | undefined {
  return stmt<AnnotationEventRow>(
    db,
    'SELECT * FROM dataset_annotation_events WHERE undone_at IS NULL AND actor = ? ORDER BY seq DESC LIMIT 1',
  ).get(actor);
}

/** The batch's actions not undone yet, newest first. */
export function listOpenBatchEvents(db: DB, batchId: string): AnnotationEventRow[] {
  return stmt<AnnotationEventRow>(
    db,
    'SELECT * FROM dataset_annotation_events WHERE batch_id = ? AND undone_at IS NULL ORDER BY seq DESC',
  ).all(batchId);
}

export function markEventUndone(db: DB, seq: number, at: number): void {
  stmt(db, 'UPDATE dataset_annotation_events SET undone_at = ? WHERE seq = ?').run(at, seq);
}

/** The sample's latest review action (undone or not). */
export function findLastEventSeqOfSample(db: DB, sampleId: string): number | undefined {
  return stmt(db, 'SELECT seq FROM dataset_annotation_events WHERE sample_id = ? ORDER BY seq DESC LIMIT 1').pluck().get(sampleId) as
    number | undefined;
}
