// Decision counts per type and average latency, overall or per day, week or session.
import type { GateStats } from '../../shared/contract/records';
import { GATE_DECISIONS, type GateDecision } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { ServiceContext } from '../context';
import { clampLimit } from '../db/paging';
import { countDecisionsByGroup, countDecisionsByType, type DecisionGrouping } from '../db/repositories/decisions';
import { decisionQuery, type DecisionFilters } from './list';

export type GateStatsGrouping = GateStats['groupBy'];

export interface GateStatsInput extends DecisionFilters {
  groupBy?: GateStatsGrouping;
  /** Most groups returned (newest days/weeks, busiest sessions). Default 60. */
  limit?: number;
}

const GROUPINGS: Record<Exclude<GateStatsGrouping, 'none'>, DecisionGrouping> = { daily: 'day', weekly: 'week', session: 'session' };

const round = (v: number | null) => (v === null ? null : Math.round(v));
const byDecisionOf = (counts: Array<{ decision: GateDecision; count: number }>) =>
  Object.fromEntries(GATE_DECISIONS.map((d) => [d, counts.find((c) => c.decision === d)?.count ?? 0])) as Record<GateDecision, number>;

export function gateStats(ctx: ServiceContext, input: GateStatsInput = {}): GateStats {
  const groupBy = input.groupBy ?? 'none';
  if (groupBy !== 'none' && !(groupBy in GROUPINGS))
    throw new AppError('Invalid', `groupBy: expected none, daily, weekly or session, got ${groupBy}`);
  const limit = clampLimit(input.limit, 60, 10_000);
  const q = decisionQuery(ctx, input);
  const byType = countDecisionsByType(ctx.db, q);
  const total = byType.reduce((n, r) => n + r.count, 0);
  const latencySum = byType.reduce((s, r) => s + (r.avg ?? 0) * r.count, 0);
  const latencyCount = byType.filter((r) => r.avg !== null).reduce((n, r) => n + r.count, 0);
  const buckets =
    groupBy === 'none'
      ? []
      : countDecisionsByGroup(ctx.db, q, GROUPINGS[groupBy], GATE_DECISIONS, limit).map((r) => ({
          key: r.key,
          total: r.total,
          byDecision: byDecisionOf(r.byDecision),
          avgLatencyMs: round(r.avg),
          sessionCount: r.sessions,
        }));
  const avgLatencyByDecision = Object.fromEntries(
    GATE_DECISIONS.map((d) => [d, round(byType.find((r) => r.decision === d)?.avg ?? null)]),
  ) as Record<GateDecision, number | null>;
  return {
    groupBy,
    buckets,
    totals: {
      total,
      byDecision: byDecisionOf(byType),
      avgLatencyMs: latencyCount ? Math.round(latencySum / latencyCount) : null,
      avgLatencyByDecision,
    },
  };
}
