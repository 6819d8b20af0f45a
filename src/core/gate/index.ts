// memory_gate observability: the services behind `reflection gate ...` and the workbench's decision views.
export { listDecisions, listDecisionsPlanSql, decisionQuery, type ListDecisionsInput, type DecisionFilters } from './list';
export { showDecision, resolveDecisionId } from './show';
export { gateStats, type GateStatsInput, type GateStatsGrouping } from './stats';
export {
  exportDecisions,
  DECISION_EXPORT_FORMATS,
  type DecisionExportFormat,
  type ExportDecisionsInput,
  type ExportDecisionsResult,
} from './export';
export { statsOverview, type StatsOverview, type StatsOverviewInput } from './overview';
