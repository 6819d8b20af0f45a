// Read-only figures over the dataset: counts and quality distributions for the Stats view, and the
// curator's verdicts on the writer (gate and guardian) that writer quality is computed from.
// Samples and decisions of excluded sessions never count.
import type { AnnotationStatus, GateDecision, MemoryFileName, SampleType } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';
import { SAMPLE_COLUMNS, type StoredSampleRow } from './samples';

const VISIBLE = 'session_id NOT IN (SELECT session_id FROM excluded_sessions)';
const visible = (alias: string) => `${alias}.${VISIBLE}`;

export interface SampleCounts {
  total: number;
  byType: { sampleType: SampleType; count: number; avgQuality: number | null }[];
  byStatus: { status: AnnotationStatus; count: number }[];
  daily: { date: string; count: number; approved: number; rejected: number }[];
  /** Scored samples per tenth of the score: bucket b holds [b/10, (b+1)/10), 9 holds 1 too. */
  qualityBuckets: { b: number; n: number }[];
  unscored: number | null;
  pii: number | null;
  clusters: number;
}

export function countVisibleSamples(db: DB): SampleCounts {
  const total = stmt(db, `SELECT count(*) FROM dataset_samples WHERE ${VISIBLE}`).pluck().get() as number;
  const byType = stmt<SampleCounts['byType'][number]>(
    db,
    `SELECT sample_type AS sampleType, count(*) AS count, round(avg(quality_score), 3) AS avgQuality
      FROM dataset_samples WHERE ${VISIBLE} GROUP BY sample_type ORDER BY sample_type`,
  ).all();
  const byStatus = stmt<SampleCounts['byStatus'][number]>(
    db,
    `SELECT annotation_status AS status, count(*) AS count FROM dataset_samples WHERE ${VISIBLE}
      GROUP BY annotation_status ORDER BY annotation_status`,
  ).all();
  const daily = stmt<SampleCounts['daily'][number]>(
    db,
    `SELECT date(created_at / 1000, 'unixepoch') AS date, count(*) AS count,
        sum(annotation_status IN ('approved', 'auto_approved')) AS approved, sum(annotation_status = 'rejected') AS rejected
      FROM dataset_samples WHERE ${VISIBLE} GROUP BY 1 ORDER BY 1`,
  ).all();
  const qualityBuckets = stmt<{ b: number; n: number }>(
    db,
    `SELECT min(CAST(quality_score * 10 AS INTEGER), 9) AS b, count(*) AS n FROM dataset_samples
      WHERE ${VISIBLE} AND quality_score IS NOT NULL GROUP BY b`,
  ).all();
  const extra = stmt<{ unscored: number | null; pii: number | null; clusters: number }>(
    db,
    `SELECT sum(quality_score IS NULL) AS unscored, sum(contains_pii) AS pii, count(DISTINCT coalesce(cluster_id, id)) AS clusters
      FROM dataset_samples WHERE ${VISIBLE}`,
  ).get()!;
  return { total, byType, byStatus, daily, qualityBuckets, ...extra };
}

export type QualityFactorName = 'conversationClarity' | 'decisionConfidence' | 'factVerifiability';

/** Count, mean, min, max and tenth-buckets of the score or one quality factor. */
export function summarizeQualityValue(
  db: DB,
  factor: QualityFactorName | 'score',
): { count: number; avg: number | null; min: number | null; max: number | null; buckets: { b: number; n: number }[] } {
  const expr = factor === 'score' ? 'quality_score' : `json_extract(quality_factors, '$.${factor}')`;
  const agg = stmt<{ count: number; avg: number | null; min: number | null; max: number | null }>(
    db,
    `SELECT count(v) AS count, round(avg(v), 3) AS avg, min(v) AS min, max(v) AS max
        FROM (SELECT ${expr} AS v FROM dataset_samples WHERE ${VISIBLE})`,
  ).get()!;
  const buckets = stmt<{ b: number; n: number }>(
    db,
    `SELECT min(CAST(v * 10 AS INTEGER), 9) AS b, count(*) AS n
        FROM (SELECT ${expr} AS v FROM dataset_samples WHERE ${VISIBLE}) WHERE v IS NOT NULL GROUP BY b`,
  ).all();
  return { ...agg, buckets };
}

/** The lowest-scored samples. */
export function listWeakestSamples(db: DB, limit: number): StoredSampleRow[] {
  return stmt<StoredSampleRow>(
    db,
    `SELECT ${SAMPLE_COLUMNS} FROM dataset_samples WHERE ${VISIBLE} AND quality_score IS NOT NULL
        ORDER BY quality_score ASC, id LIMIT ?`,
  ).all(limit);
}

/** A gate decision with what the curator says it should have been. */
export interface GateVerdictRow {
  id: string;
  pred: GateDecision;
  truth: GateDecision | null;
  at: number;
}

/** Approved gate samples: their content says the correct decision. */
export function listGateVerdictsFromSamples(db: DB): GateVerdictRow[] {
  return stmt<GateVerdictRow>(
    db,
    `SELECT d.id, d.decision AS pred, json_extract(s.content, '$.correctDecision') AS truth, d.created_at AS at
      FROM dataset_samples s JOIN memory_gate_decisions d ON d.id = s.decision_id
      WHERE s.annotation_status = 'approved' AND s.sample_type IN ('memory_gate_positive', 'memory_gate_negative') AND ${visible('s')}
      ORDER BY s.annotated_at`,
  ).all();
}

/** Rolled-back plugin writes: the decision should have been NO_WRITE. */
export function listGateVerdictsFromRollbacks(db: DB): GateVerdictRow[] {
  return stmt<GateVerdictRow>(
    db,
    `SELECT d.id, d.decision AS pred, 'NO_WRITE' AS truth, d.created_at AS at
      FROM rollbacks r JOIN write_guardian_audit a ON a.id = r.audit_id JOIN memory_gate_decisions d ON d.id = a.decision_id
      WHERE a.source = 'plugin' AND ${visible('d')}`,
  ).all();
}

/** Behaviour corrections of plugin writes, with the status and file the curator says were right. */
export function listGateCorrectionsOfWrites(
  db: DB,
): { id: string; pred: GateDecision; status: string; file: MemoryFileName; at: number }[] {
  return stmt<{ id: string; pred: GateDecision; status: string; file: MemoryFileName; at: number }>(
    db,
    `SELECT d.id, d.decision AS pred, c.corrected_status AS status, coalesce(c.corrected_target_file, a.target_file) AS file,
        d.created_at AS at
      FROM behavior_corrections c JOIN write_guardian_audit a ON a.id = c.audit_id JOIN memory_gate_decisions d ON d.id = a.decision_id
      WHERE a.source = 'plugin' AND ${visible('d')} ORDER BY c.corrected_at`,
  ).all();
}

/** Missed-write and other corrections of gate decisions. */
export function listGateVerdictsFromCorrections(db: DB): GateVerdictRow[] {
  return stmt<GateVerdictRow>(
    db,
    `SELECT d.id, d.decision AS pred, g.corrected_decision AS truth, d.created_at AS at
      FROM dataset_gate_corrections g JOIN memory_gate_decisions d ON d.id = g.decision_id WHERE ${visible('d')}
      ORDER BY g.corrected_at`,
  ).all();
}

/** What the guardian did and what it should have done, from approved samples, rollbacks and corrections. */
export function listGuardianVerdicts(db: DB): { id: string; did: string; should: string }[] {
  return stmt<{ id: string; did: string; should: string }>(
    db,
    `SELECT a.id, a.status AS did, coalesce(json_extract(s.content, '$.userCorrection.correctedDecision'), json_extract(s.content, '$.decision')) AS should
      FROM dataset_samples s JOIN write_guardian_audit a ON a.id = s.audit_id
      WHERE s.sample_type = 'write_guardian_decision' AND s.annotation_status = 'approved' AND ${visible('s')}
      UNION ALL
      SELECT a.id, a.status, 'refused' FROM rollbacks r JOIN write_guardian_audit a ON a.id = r.audit_id WHERE a.source = 'plugin' AND ${visible('a')}
      UNION ALL
      SELECT a.id, a.status, c.corrected_status FROM behavior_corrections c JOIN write_guardian_audit a ON a.id = c.audit_id
        WHERE a.source = 'plugin' AND ${visible('a')}`,
  ).all();
}

/** Plugin writes per memory file with their rollbacks and corrections. */
export function countWritesPerFile(db: DB): { file: MemoryFileName; writes: number; rollbacks: number; corrections: number }[] {
  return stmt<{ file: MemoryFileName; writes: number; rollbacks: number; corrections: number }>(
    db,
    `SELECT a.target_file AS file, sum(a.status IN ('written', 'rolled_back')) AS writes,
        (SELECT count(*) FROM rollbacks r JOIN write_guardian_audit x ON x.id = r.audit_id WHERE x.target_file = a.target_file AND x.source = 'plugin') AS rollbacks,
        (SELECT count(*) FROM behavior_corrections c JOIN write_guardian_audit x ON x.id = c.audit_id WHERE x.target_file = a.target_file AND x.source = 'plugin') AS corrections
      FROM write_guardian_audit a WHERE a.source = 'plugin' AND ${visible('a')} GROUP BY a.target_file`,
  ).all();
}
