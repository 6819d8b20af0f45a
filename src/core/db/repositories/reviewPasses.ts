// Review coordination: reservations (review_reservations) that keep two curators off the same
// sample, the second-pass queue and its agreement figures (review_second_pass), and each curator's
// recent review history (dataset_annotation_events).
import type { AgreementReport, HistoryEntry } from '../../../shared/contract/curation';
import type { DB } from '../connection';
import { stmt } from '../statements';

export function deleteExpiredReservations(db: DB, now: number): void {
  stmt(db, 'DELETE FROM review_reservations WHERE expires_at <= ?').run(now);
}

// A sample waiting for a second opinion is never served to its first curator, so they may not hold
// it either: a hold asked for before their label but handled after the second pass started would
// keep the second curator away. (startSecondPass gives back the holds they had before.)
const FIRST_CURATOR_WAITING = `(SELECT first_curator FROM review_second_pass WHERE sample_id = @id AND second_label IS NULL)`;

/**
 * Holds (or renews) an existing sample for the curator unless someone else holds it; returns the
 * holder after. A sample waiting for a second opinion is never held by its first curator.
 */
export function claimReservation(
  db: DB,
  sampleId: string,
  curator: string,
  until: number,
): { curator: string; expires_at: number } | undefined {
  stmt(
    db,
    `INSERT INTO review_reservations (sample_id, curator, expires_at)
       SELECT id, @me, @until FROM dataset_samples WHERE id = @id AND @me IS NOT ${FIRST_CURATOR_WAITING}
       ON CONFLICT (sample_id) DO UPDATE SET curator = excluded.curator, expires_at = excluded.expires_at
       WHERE review_reservations.curator = excluded.curator`,
  ).run({ id: sampleId, me: curator, until });
  return stmt<{ curator: string; expires_at: number }>(db, 'SELECT curator, expires_at FROM review_reservations WHERE sample_id = ?').get(
    sampleId,
  );
}

/** Another curator's live hold on a sample. */
export function findOtherHolder(
  db: DB,
  sampleId: string,
  curator: string,
  now: number,
): { curator: string; expires_at: number } | undefined {
  return stmt<{ curator: string; expires_at: number }>(
    db,
    'SELECT curator, expires_at FROM review_reservations WHERE sample_id = ? AND curator <> ? AND expires_at > ?',
  ).get(sampleId, curator, now);
}

/** Releases the curator's hold on a sample; returns 1 when there was one. */
export function deleteReservation(db: DB, sampleId: string, curator: string): number {
  return stmt(db, 'DELETE FROM review_reservations WHERE sample_id = ? AND curator = ?').run(sampleId, curator).changes;
}

export interface LabelledSampleRow {
  id: string;
  annotated_by: string;
  annotation_status: string;
}

/** Labelled samples (approved, rejected, needs_review) outside excluded sessions and not yet in a second pass. */
export function listSamplesForSecondPass(db: DB): LabelledSampleRow[] {
  return stmt<LabelledSampleRow>(
    db,
    `SELECT s.id, s.annotated_by, s.annotation_status FROM dataset_samples s
       WHERE s.annotation_status IN ('approved', 'rejected', 'needs_review') AND s.annotated_by IS NOT NULL
         AND s.session_id NOT IN (SELECT session_id FROM excluded_sessions)
         AND NOT EXISTS (SELECT 1 FROM review_second_pass p WHERE p.sample_id = s.id)`,
  ).all();
}

export function insertSecondPass(db: DB, sampleId: string, firstCurator: string, firstLabel: string, at: number): void {
  stmt(db, 'INSERT INTO review_second_pass (sample_id, first_curator, first_label, created_at) VALUES (?, ?, ?, ?)').run(
    sampleId,
    firstCurator,
    firstLabel,
    at,
  );
}

export function listSecondPassLabelPairs(db: DB): Array<{ a: string; b: string }> {
  return stmt<{ a: string; b: string }>(
    db,
    'SELECT first_label AS a, second_label AS b FROM review_second_pass WHERE second_label IS NOT NULL',
  ).all();
}

export function countSecondPassWaiting(db: DB): number {
  return stmt(db, 'SELECT count(*) FROM review_second_pass WHERE second_label IS NULL').pluck().get() as number;
}

export function countSecondPassAdjudicated(db: DB): number {
  return stmt(db, 'SELECT count(*) FROM review_second_pass WHERE adjudicated_label IS NOT NULL').pluck().get() as number;
}

export function listSecondPassCurators(db: DB): AgreementReport['curators'] {
  return stmt<AgreementReport['curators'][number]>(
    db,
    `SELECT name, sum(first) AS first, sum(second) AS second FROM (
         SELECT first_curator AS name, 1 AS first, 0 AS second FROM review_second_pass
         UNION ALL SELECT second_curator, 0, 1 FROM review_second_pass WHERE second_curator IS NOT NULL)
       GROUP BY name ORDER BY name`,
  ).all();
}

/** Second labels that differ from the first and no lead settled yet, newest first. */
export function listOpenDisagreements(db: DB, limit: number): AgreementReport['disagreements'] {
  return stmt<AgreementReport['disagreements'][number]>(
    db,
    `SELECT p.sample_id AS sampleId, s.sample_type AS sampleType, p.first_curator AS firstCurator, p.first_label AS firstLabel,
        p.second_curator AS secondCurator, p.second_label AS secondLabel, p.second_at AS secondAt
       FROM review_second_pass p JOIN dataset_samples s ON s.id = p.sample_id
       WHERE p.second_label IS NOT NULL AND p.second_label <> p.first_label AND p.adjudicated_label IS NULL
       ORDER BY p.second_at DESC LIMIT ?`,
  ).all(limit);
}

/** Review actions per curator (not undone), busiest first. */
export function listReviewerActionCounts(db: DB): AgreementReport['reviewers'] {
  return stmt<AgreementReport['reviewers'][number]>(
    db,
    'SELECT actor AS name, count(*) AS actions FROM dataset_annotation_events WHERE undone_at IS NULL GROUP BY actor ORDER BY actions DESC',
  ).all();
}

/** The sample's second-pass row: undefined when it is not in the second pass. */
export function findSecondPass(db: DB, sampleId: string): { second_label: string | null } | undefined {
  return stmt<{ second_label: string | null }>(db, 'SELECT second_label FROM review_second_pass WHERE sample_id = ?').get(sampleId);
}

export function markSecondPassAdjudicated(db: DB, sampleId: string, label: string, by: string, at: number): void {
  stmt(db, 'UPDATE review_second_pass SET adjudicated_label = ?, adjudicated_by = ?, adjudicated_at = ? WHERE sample_id = ?').run(
    label,
    by,
    at,
    sampleId,
  );
}

/** The curator's recent review actions, a batch counted as one, newest first (scans their last 5000 events). */
export function listReviewHistory(db: DB, curator: string, limit: number): HistoryEntry[] {
  const rows = stmt<Omit<HistoryEntry, 'undone'> & { undone: number }>(
    db,
    `SELECT max(e.seq) AS seq, e.sample_id AS sampleId, s.sample_type AS sampleType, e.action, e.reason, count(*) AS count,
         e.batch_id AS batchId, max(e.created_at) AS at, max(e.undone_at IS NOT NULL) AS undone
       FROM (SELECT * FROM dataset_annotation_events WHERE actor = @me ORDER BY seq DESC LIMIT @scan) e
       JOIN dataset_samples s ON s.id = e.sample_id
       GROUP BY coalesce(e.batch_id, 'seq:' || e.seq) ORDER BY seq DESC LIMIT @limit`,
  ).all({ me: curator, limit, scan: 5000 });
  return rows.map((r) => ({ ...r, undone: r.undone === 1 }));
}

export function deleteReservationsOfSample(db: DB, sampleId: string): void {
  stmt(db, 'DELETE FROM review_reservations WHERE sample_id = ?').run(sampleId);
}

/** The first curator of the sample's second pass while it waits for a second label. */
export function findSecondPassAwaitingLabel(db: DB, sampleId: string): string | undefined {
  return stmt(db, 'SELECT first_curator FROM review_second_pass WHERE sample_id = ? AND second_label IS NULL').pluck().get(sampleId) as
    string | undefined;
}

export function setSecondLabel(db: DB, sampleId: string, curator: string, label: string, at: number): void {
  stmt(db, 'UPDATE review_second_pass SET second_curator = ?, second_label = ?, second_at = ? WHERE sample_id = ?').run(
    curator,
    label,
    at,
    sampleId,
  );
}

/** Takes a second label back: the sample waits in the second pass again. */
export function clearSecondLabel(db: DB, sampleId: string): void {
  stmt(db, 'UPDATE review_second_pass SET second_curator = NULL, second_label = NULL, second_at = NULL WHERE sample_id = ?').run(sampleId);
}
