// Importers: bring in what users already have (plugin logs, OpenClaw transcripts, eval sets).
// Every importer is incremental (a cursor per source file) and idempotent (ids derived from the
// source), so the live watcher calls the same functions again as files grow.
export { importReflectionLogs, findReflectionLogs, type ReflectionLogsInput } from './reflectionLogs';
export { importOpenClaw, type OpenClawInput } from './openclaw';
export { importEvals, GOLD_STRATEGY, type EvalsInput } from './evals';
export { evalModelComparison } from './evalResults';
export { importDailyNotes, listDailyNotes, searchDailyNotes, type DailyNotesInput } from './dailyNotes';
export { summarize } from './report';
export { canonicalSessionId } from './openclawSessions';
export { sessionForAlias } from './cursors';
export { stripUserEnvelope, stripReplyTags } from './openclawText';
