// memory_gate observability: the services behind `reflection gate ...` and the workbench's decision views.
export { listDecisions, listDecisionsSql, type ListDecisionsInput, type DecisionFilters, type DecisionListItem, type DecisionPage } from './list';
export { showDecision, resolveDecisionId, type DecisionDetail, type WriteOutcome } from './show';
export { gateStats, type GateStats, type GateStatsInput, type GateStatsRow, type GateStatsGrouping, type DecisionTypeStats } from './stats';
export { exportDecisions, DECISION_EXPORT_FORMATS, type DecisionExportFormat, type ExportDecisionsInput, type ExportDecisionsResult } from './export';
export { statsOverview, type StatsOverview, type StatsOverviewInput } from './overview';
