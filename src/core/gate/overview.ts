// Numbers for the workbench's stats screen: totals, decisions per day by type, write outcomes by status.
import { AUDIT_STATUSES, GATE_DECISIONS, type AuditStatus, type GateDecision } from '../../shared/domain';
import { nowOf, type ServiceContext } from '../context';
import { stmt } from '../db/statements';
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
  const count = (table: string) => stmt(ctx.db, `SELECT count(*) FROM ${table}`).pluck().get() as number;
  const totals = {
    sessions: count('sessions'),
    turns: count('conversation_turns'),
    decisions: count('memory_gate_decisions'),
    writes: count('write_guardian_audit'),
    snapshots: count('file_snapshots'),
  };
  // The newest record of either kind: a write lands just after its decision, so the range must reach it too.
  const newest = stmt(
    ctx.db,
    `SELECT nullif(max(coalesce((SELECT max(created_at) FROM memory_gate_decisions), -1),
                       coalesce((SELECT max(created_at) FROM write_guardian_audit), -1)), -1)`,
  ).pluck().get() as number | null;
  const until = parseTime(input.until, 'until', nowOf(ctx)) ?? (newest === null ? undefined : newest + 1);
  const since = parseTime(input.since, 'since', nowOf(ctx)) ?? (until === undefined ? undefined : until - (input.days ?? 30) * DAY);
  if (since === undefined || until === undefined) {
    return { range: null, totals, decisionsPerDay: [], decisionsByType: GATE_DECISIONS.map((decision) => ({ decision, count: 0 })), writeOutcomes: AUDIT_STATUSES.map((status) => ({ status, count: 0 })) };
  }
  const perDay = stmt(
    ctx.db,
    `SELECT date(created_at / 1000, 'unixepoch') AS date, decision, COUNT(*) AS n FROM memory_gate_decisions
     WHERE created_at >= ? AND created_at < ? GROUP BY 1, 2 ORDER BY 1`,
  ).all(since, until) as Array<{ date: string; decision: GateDecision; n: number }>;
  const days = new Map<string, { date: string; total: number; counts: Record<GateDecision, number> }>();
  const byType = new Map<GateDecision, number>(GATE_DECISIONS.map((d) => [d, 0]));
  for (const r of perDay) {
    let day = days.get(r.date);
    if (!day) days.set(r.date, (day = { date: r.date, total: 0, counts: Object.fromEntries(GATE_DECISIONS.map((d) => [d, 0])) as Record<GateDecision, number> }));
    day.counts[r.decision] = r.n;
    day.total += r.n;
    byType.set(r.decision, (byType.get(r.decision) ?? 0) + r.n);
  }
  const outcomes = stmt(
    ctx.db,
    'SELECT status, COUNT(*) AS n FROM write_guardian_audit WHERE created_at >= ? AND created_at < ? GROUP BY status',
  ).all(since, until) as Array<{ status: AuditStatus; n: number }>;
  return {
    range: { from: since, to: until },
    totals,
    decisionsPerDay: [...days.values()],
    decisionsByType: GATE_DECISIONS.map((decision) => ({ decision, count: byType.get(decision) ?? 0 })),
    writeOutcomes: AUDIT_STATUSES.map((status) => ({ status, count: outcomes.find((o) => o.status === status)?.n ?? 0 })),
  };
}
