// Dataset statistics and the quality report (factor distributions, weakest samples).
import type { ServiceContext } from '../context';
import { SAMPLE_COLUMNS, sampleFromRow, type DatasetSample, type SampleRow } from './types';

const VISIBLE = 'session_id NOT IN (SELECT session_id FROM excluded_sessions)';

export interface DatasetStats {
  total: number;
  byType: { sampleType: string; count: number; avgQuality: number | null }[];
  byStatus: { status: string; count: number }[];
  daily: { date: string; count: number; approved: number; rejected: number }[];
  /** Ten buckets [0,0.1) ... [0.9,1]; unscored samples are counted apart. */
  qualityDistribution: { from: number; to: number; count: number }[];
  unscored: number;
  containsPii: number;
  clusters: number;
}

export function datasetStats(ctx: ServiceContext): DatasetStats {
  const db = ctx.db;
  const total = db.prepare(`SELECT count(*) FROM dataset_samples WHERE ${VISIBLE}`).pluck().get() as number;
  const byType = db
    .prepare(`SELECT sample_type AS sampleType, count(*) AS count, round(avg(quality_score), 3) AS avgQuality
      FROM dataset_samples WHERE ${VISIBLE} GROUP BY sample_type ORDER BY sample_type`)
    .all() as DatasetStats['byType'];
  const byStatus = db
    .prepare(`SELECT annotation_status AS status, count(*) AS count FROM dataset_samples WHERE ${VISIBLE}
      GROUP BY annotation_status ORDER BY annotation_status`)
    .all() as DatasetStats['byStatus'];
  const daily = db
    .prepare(`SELECT date(created_at / 1000, 'unixepoch') AS date, count(*) AS count,
        sum(annotation_status IN ('approved', 'auto_approved')) AS approved, sum(annotation_status = 'rejected') AS rejected
      FROM dataset_samples WHERE ${VISIBLE} GROUP BY 1 ORDER BY 1`)
    .all() as DatasetStats['daily'];
  const buckets = db
    .prepare(`SELECT min(CAST(quality_score * 10 AS INTEGER), 9) AS b, count(*) AS n FROM dataset_samples
      WHERE ${VISIBLE} AND quality_score IS NOT NULL GROUP BY b`)
    .all() as { b: number; n: number }[];
  const qualityDistribution = Array.from({ length: 10 }, (_, i) => ({
    from: i / 10,
    to: (i + 1) / 10,
    count: buckets.find((x) => x.b === i)?.n ?? 0,
  }));
  const extra = db
    .prepare(`SELECT sum(quality_score IS NULL) AS unscored, sum(contains_pii) AS pii, count(DISTINCT coalesce(cluster_id, id)) AS clusters
      FROM dataset_samples WHERE ${VISIBLE}`)
    .get() as { unscored: number | null; pii: number | null; clusters: number };
  return { total, byType, byStatus, daily, qualityDistribution, unscored: extra.unscored ?? 0, containsPii: extra.pii ?? 0, clusters: extra.clusters };
}

export const QUALITY_FACTORS = ['conversationClarity', 'decisionConfidence', 'factVerifiability'] as const;

export interface FactorSummary {
  factor: (typeof QUALITY_FACTORS)[number] | 'score';
  count: number;
  avg: number | null;
  min: number | null;
  max: number | null;
  /** counts in ten buckets of 0.1 */
  histogram: number[];
}

export interface QualityReport {
  factors: FactorSummary[];
  weakest: DatasetSample[];
}

export function qualityReport(ctx: ServiceContext, opts: { weakest?: number } = {}): QualityReport {
  const db = ctx.db;
  const summarize = (factor: FactorSummary['factor']): FactorSummary => {
    const expr = factor === 'score' ? 'quality_score' : `json_extract(quality_factors, '$.${factor}')`;
    const agg = db
      .prepare(`SELECT count(v) AS count, round(avg(v), 3) AS avg, min(v) AS min, max(v) AS max
        FROM (SELECT ${expr} AS v FROM dataset_samples WHERE ${VISIBLE})`)
      .get() as Omit<FactorSummary, 'factor' | 'histogram'>;
    const rows = db
      .prepare(`SELECT min(CAST(v * 10 AS INTEGER), 9) AS b, count(*) AS n
        FROM (SELECT ${expr} AS v FROM dataset_samples WHERE ${VISIBLE}) WHERE v IS NOT NULL GROUP BY b`)
      .all() as { b: number; n: number }[];
    const histogram = Array.from({ length: 10 }, (_, i) => rows.find((r) => r.b === i)?.n ?? 0);
    return { factor, ...agg, histogram };
  };
  const weakest = (
    db
      .prepare(`SELECT ${SAMPLE_COLUMNS} FROM dataset_samples WHERE ${VISIBLE} AND quality_score IS NOT NULL
        ORDER BY quality_score ASC, id LIMIT ?`)
      .all(opts.weakest ?? 10) as SampleRow[]
  ).map(sampleFromRow);
  return { factors: [summarize('score'), ...QUALITY_FACTORS.map(summarize)], weakest };
}
