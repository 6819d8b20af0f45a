// Numbers for the workbench's stats screen: totals, decisions per day by type, write outcomes by status.
import { AUDIT_STATUSES, GATE_DECISIONS, type AuditStatus, type GateDecision } from '../../shared/domain';
import { nowOf, type ServiceContext } from '../context';
import { countDecisionsPerDay, countWorkspaceRows, countWritesByStatus, newestRecordTime } from '../db/repositories/overview';
import { parseTime } from '../text/time';

export interface StatsOverviewInput {
  since?: number | string;
  until?: number | string;
  /** Without since/until: this many days ending at the newest decision or write (default 30). */
  days?: number;
}

export interface StatsOverview {
  range: { from: number; to: number } | null;
  totals: { sessions: number; turns: number; decisions: number; writes: number; snapshots: number };
  decisionsPerDay: Array<{ date: string; total: number; counts: Record<GateDecision, number> }>;
  decisionsByType: Array<{ decision: GateDecision; count: number }>;
  writeOutcomes: Array<{ status: AuditStatus; count: number }>;
}

const DAY = 86_400_000;

export function statsOverview(ctx: ServiceContext, input: StatsOverviewInput = {}): StatsOverview {
  const totals = countWorkspaceRows(ctx.db);
  // The newest record of either kind: a write lands just after its decision, so the range must reach it too.
  const newest = newestRecordTime(ctx.db);
  const until = parseTime(input.until, 'until', nowOf(ctx)) ?? (newest === null ? undefined : newest + 1);
  const since = parseTime(input.since, 'since', nowOf(ctx)) ?? (until === undefined ? undefined : until - (input.days ?? 30) * DAY);
  if (since === undefined || until === undefined) {
    return {
      range: null,
      totals,
      decisionsPerDay: [],
      decisionsByType: GATE_DECISIONS.map((decision) => ({ decision, count: 0 })),
      writeOutcomes: AUDIT_STATUSES.map((status) => ({ status, count: 0 })),
    };
  }
  const perDay = countDecisionsPerDay(ctx.db, since, until);
  const days = new Map<string, { date: string; total: number; counts: Record<GateDecision, number> }>();
  const byType = new Map<GateDecision, number>(GATE_DECISIONS.map((d) => [d, 0]));
  for (const r of perDay) {
    let day = days.get(r.date);
    if (!day)
      days.set(
        r.date,
        (day = { date: r.date, total: 0, counts: Object.fromEntries(GATE_DECISIONS.map((d) => [d, 0])) as Record<GateDecision, number> }),
      );
    day.counts[r.decision] = r.n;
    day.total += r.n;
    byType.set(r.decision, (byType.get(r.decision) ?? 0) + r.n);
  }
  const outcomes = countWritesByStatus(ctx.db, since, until);
  return {
    range: { from: since, to: until },
    totals,
    decisionsPerDay: [...days.values()],
    decisionsByType: GATE_DECISIONS.map((decision) => ({ decision, count: byType.get(decision) ?? 0 })),
    writeOutcomes: AUDIT_STATUSES.map((status) => ({ status, count: outcomes.find((o) => o.status === status)?.n ?? 0 })),
  };
}
