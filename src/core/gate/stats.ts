// Decision counts per type and average latency, overall or per day, week or session.
import { GATE_DECISIONS, type GateDecision } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { ServiceContext } from '../context';
import { decisionWhere, type DecisionFilters } from './list';
import { stmt } from '../db/statements';
import { clampLimit } from '../db/paging';

export type GateStatsGrouping = 'none' | 'day' | 'week' | 'session';

export interface GateStatsInput extends DecisionFilters {
  groupBy?: GateStatsGrouping;
  /** Most groups returned (newest days/weeks, busiest sessions). Default 60. */
  limit?: number;
}

export interface DecisionTypeStats {
  decision: GateDecision;
  count: number;
  avgLatencyMs: number | null;
}

export interface GateStatsRow {
  /** YYYY-MM-DD for a day, the Monday for a week, the session key for a session. */
  key: string;
  total: number;
  counts: Record<GateDecision, number>;
  avgLatencyMs: number | null;
  sessionCount: number;
}

export interface GateStats {
  groupBy: GateStatsGrouping;
  total: number;
  avgLatencyMs: number | null;
  byDecision: DecisionTypeStats[];
  rows: GateStatsRow[];
}

const COUNT_COLUMNS = GATE_DECISIONS.map((d, i) => `SUM(d.decision = '${d}') AS c${i}`).join(', ');
const GROUP_KEY: Record<Exclude<GateStatsGrouping, 'none'>, { key: string; order: string }> = {
  day: { key: "date(d.created_at / 1000, 'unixepoch')", order: 'key DESC' },
  // 'weekday 0' moves forward to Sunday; six days back is that week's Monday.
  week: { key: "date(d.created_at / 1000, 'unixepoch', 'weekday 0', '-6 days')", order: 'key DESC' },
  session: { key: 'd.session_id', order: 'total DESC, key' },
};

const round = (v: number | null) => (v === null ? null : Math.round(v));

export function gateStats(ctx: ServiceContext, input: GateStatsInput = {}): GateStats {
  const groupBy = input.groupBy ?? 'none';
  if (!['none', 'day', 'week', 'session'].includes(groupBy)) throw new AppError('Invalid', `groupBy: expected none, day, week or session, got ${groupBy}`);
  const limit = clampLimit(input.limit, 60, 10_000);
  const { clauses, params, needsTurn } = decisionWhere(ctx, input);
  const from = `FROM memory_gate_decisions d${needsTurn ? ' JOIN conversation_turns t ON t.id = d.turn_id' : ''}
    ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''}`;
  const byType = stmt(ctx.db, `SELECT d.decision, COUNT(*) AS count, AVG(d.llm_latency_ms) AS avg ${from} GROUP BY d.decision`).all(params) as Array<{
    decision: GateDecision; count: number; avg: number | null;
  }>;
  const byDecision = GATE_DECISIONS.map((decision) => {
    const r = byType.find((x) => x.decision === decision);
    return { decision, count: r?.count ?? 0, avgLatencyMs: round(r?.avg ?? null) };
  });
  const total = byDecision.reduce((n, r) => n + r.count, 0);
  const latencySum = byType.reduce((s, r) => s + (r.avg ?? 0) * r.count, 0);
  const latencyCount = byType.filter((r) => r.avg !== null).reduce((n, r) => n + r.count, 0);
  let rows: GateStatsRow[] = [];
  if (groupBy !== 'none') {
    const g = GROUP_KEY[groupBy];
    const raw = stmt(
      ctx.db,
      `SELECT ${g.key} AS key, COUNT(*) AS total, ${COUNT_COLUMNS}, AVG(d.llm_latency_ms) AS avg, COUNT(DISTINCT d.session_id) AS sessions
       ${from} GROUP BY 1 ORDER BY ${g.order} LIMIT @groupLimit`,
    ).all({ ...params, groupLimit: limit }) as Array<Record<string, number | string | null>>;
    rows = raw.map((r) => ({
      key: String(r.key),
      total: Number(r.total),
      counts: Object.fromEntries(GATE_DECISIONS.map((d, i) => [d, Number(r[`c${i}`] ?? 0)])) as Record<GateDecision, number>,
      avgLatencyMs: round(r.avg as number | null),
      sessionCount: Number(r.sessions),
    }));
  }
  return { groupBy, total, avgLatencyMs: latencyCount ? Math.round(latencySum / latencyCount) : null, byDecision, rows };
}
