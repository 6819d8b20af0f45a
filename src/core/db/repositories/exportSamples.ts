// The samples a dataset export selects: the plan's small columns, then full rows page by page, and the
// counts the export dialog and an empty export's message show. The exports themselves are recorded in
// dataset_exports (datasetExports.ts).
import type { SampleType } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

/** Which samples an export takes, before near-duplicate clusters are folded. */
export interface SampleSelection {
  sampleTypes: readonly SampleType[];
  includeUnreviewed: boolean;
  minQuality: number | null;
  since: number | null;
  until: number | null;
  /** Preference formats: only samples that hold a pair (a gate refusal, or a corrected write). */
  pairsOnly: boolean;
}

/** One sample as the plan sees it: enough to fold clusters, balance labels and split. */
export interface PlanRow {
  r: number;
  id: string;
  cluster_id: string | null;
  session_id: string;
  turn_id: string | null;
  annotation_status: string;
  corrected: number;
  edited: number;
  picked: number;
  label: string | null;
}

/** The WHERE clause (alias s) of a selection and its parameters; the text depends only on which filters are set. */
function selectionWhere(sel: SampleSelection): { where: string; params: Record<string, unknown> } {
  const parts = [
    's.session_id NOT IN (SELECT session_id FROM excluded_sessions)',
    's.sample_type IN (SELECT value FROM json_each(@types))',
    sel.includeUnreviewed ? "s.annotation_status <> 'rejected'" : "s.annotation_status IN ('approved', 'auto_approved')",
  ];
  const params: Record<string, unknown> = { types: JSON.stringify(sel.sampleTypes) };
  // unscored samples (quality scoring switched off) have no score to hold against the floor
  if (sel.minQuality !== null) {
    parts.push('(s.quality_score IS NULL OR s.quality_score >= @minQuality)');
    params.minQuality = sel.minQuality;
  }
  if (sel.since !== null) {
    parts.push('s.created_at >= @since');
    params.since = sel.since;
  }
  if (sel.until !== null) {
    parts.push('s.created_at < @until');
    params.until = sel.until;
  }
  if (sel.pairsOnly) parts.push("(s.sample_type = 'memory_gate_negative' OR s.correction_id IS NOT NULL)");
  return { where: parts.join(' AND '), params };
}

const LABEL_SQL = `CASE s.sample_type
    WHEN 'write_guardian_decision' THEN 'wg:' || coalesce(json_extract(s.content, '$.userCorrection.correctedDecision'), json_extract(s.content, '$.decision'))
    WHEN 'annotated_turn' THEN NULL
    ELSE CASE WHEN json_extract(s.content, '$.correctDecision') = 'NO_WRITE' THEN 'gate:no_write' ELSE 'gate:write' END END`;

/** Every selected sample's plan columns, in rowid order. */
export function listPlanRows(db: DB, sel: SampleSelection): PlanRow[] {
  const { where, params } = selectionWhere(sel);
  return stmt<PlanRow>(
    db,
    `SELECT s.rowid AS r, s.id, s.cluster_id, s.session_id, s.turn_id, s.annotation_status,
      (s.correction_id IS NOT NULL OR s.collection_strategy IN ('manual_correction', 'missed_write')) AS corrected,
      EXISTS (SELECT 1 FROM dataset_annotation_events e WHERE e.sample_id = s.id AND e.action = 'edit' AND e.undone_at IS NULL) AS edited,
      EXISTS (SELECT 1 FROM dataset_cluster_picks p WHERE p.sample_id = s.id) AS picked,
      ${LABEL_SQL} AS label
     FROM dataset_samples s WHERE ${where} ORDER BY s.rowid`,
  ).all(params);
}

/**
 * The planned samples of one page (all columns, as `columns` names them with alias s), by rowid, in
 * rowid order: only those rows are read, and one that left the selection since the plan is skipped.
 */
export function listPlannedSamplePage<Row>(db: DB, sel: SampleSelection, columns: string, rowids: number[]): (Row & { _rowid: number })[] {
  const { where, params } = selectionWhere(sel);
  return stmt<Row & { _rowid: number }>(
    db,
    `SELECT s.rowid AS _rowid, ${columns} FROM dataset_samples s WHERE s.rowid IN (SELECT value FROM json_each(@rowids)) AND ${where} ORDER BY s.rowid`,
  ).all({ ...params, rowids: JSON.stringify(rowids) });
}

/** How many of these selected samples contain PII. */
export function countPiiSamples(db: DB, sel: SampleSelection, ids: string[]): number {
  const { where, params } = selectionWhere(sel);
  return stmt(
    db,
    `SELECT coalesce(sum(s.contains_pii), 0) FROM dataset_samples s WHERE ${where} AND s.id IN (SELECT value FROM json_each(@ids))`,
  )
    .pluck()
    .get({ ...params, ids: JSON.stringify(ids) }) as number;
}

/** Samples outside excluded sessions, in all, waiting for review, and approved: why an export came out empty. */
export function countExportableSamples(db: DB): { all: number; waiting: number; approved: number } {
  return stmt<{ all: number; waiting: number; approved: number }>(
    db,
    `SELECT count(*) AS "all",
       coalesce(sum(s.annotation_status IN ('pending', 'needs_review')), 0) AS waiting,
       coalesce(sum(s.annotation_status IN ('approved', 'auto_approved')), 0) AS approved
     FROM dataset_samples s WHERE s.session_id NOT IN (SELECT session_id FROM excluded_sessions)`,
  ).get()!;
}

/** Samples by id with their gate decision's reason (the eval export's held-out cases), in rowid order. */
export function listSamplesWithGateReason<Row>(db: DB, columns: string, ids: string[]): (Row & { gate_reason: string | null })[] {
  return stmt<Row & { gate_reason: string | null }>(
    db,
    `SELECT ${columns}, (SELECT reason FROM memory_gate_decisions d WHERE d.id = s.decision_id) AS gate_reason
     FROM dataset_samples s WHERE s.id IN (SELECT value FROM json_each(?)) ORDER BY s.rowid`,
  ).all(JSON.stringify(ids));
}
