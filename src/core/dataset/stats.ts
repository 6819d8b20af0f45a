// Dataset statistics and the quality report (factor distributions, weakest samples).
import type { DatasetStats } from '../../shared/contract';
import type { ServiceContext } from '../context';
import { countVisibleSamples, listWeakestSamples, summarizeQualityValue } from '../db/repositories/sampleReports';
import { sampleFromRow, type DatasetSample } from './types';

export function datasetStats(ctx: ServiceContext): DatasetStats {
  const { total, byType, byStatus, daily, qualityBuckets, unscored, pii, clusters } = countVisibleSamples(ctx.db);
  const qualityDistribution = Array.from({ length: 10 }, (_, i) => ({
    from: i / 10,
    to: (i + 1) / 10,
    count: qualityBuckets.find((x) => x.b === i)?.n ?? 0,
  }));
  const reviewed = byStatus.filter((x) => x.status !== 'pending' && x.status !== 'needs_review').reduce((n, x) => n + x.count, 0);
  return {
    total,
    byStatus: Object.fromEntries(byStatus.map((x) => [x.status, x.count])),
    byType,
    daily,
    qualityDistribution,
    unscored: unscored ?? 0,
    containsPii: pii ?? 0,
    clusters,
    reviewed,
  };
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
  const summarize = (factor: FactorSummary['factor']): FactorSummary => {
    const { buckets, ...agg } = summarizeQualityValue(ctx.db, factor);
    const histogram = Array.from({ length: 10 }, (_, i) => buckets.find((r) => r.b === i)?.n ?? 0);
    return { factor, ...agg, histogram };
  };
  const weakest = listWeakestSamples(ctx.db, opts.weakest ?? 10).map(sampleFromRow);
  return { factors: [summarize('score'), ...QUALITY_FACTORS.map(summarize)], weakest };
}
