// The guardian area's public services. The CLI, IPC handlers and browser mode call these.
export { listAudits, getAudit, showAudit, auditDiff, fileHistory, auditStatusCounts, auditBriefs, type ListAuditsInput } from './queries';
export {
  rollbackWrite,
  rollbackSession,
  planRollback,
  type RollbackInput,
  type RollbackPreview,
  type RollbackResult,
  type SessionRollbackInput,
  type SessionRollbackResult,
} from './rollback';
export { retryWrite, appendUnderCuratorSection, CURATOR_SECTION, type RetryInput, type RetryResult } from './retry';
export { correctWrite, listCorrections, listFutureCorrections, matchFutureCorrections, keywordsOf, normalizeText } from './corrections';
export type { CorrectWriteInput, CorrectionRecord, FutureCorrection, CorrectionMatch } from './corrections';
export { recordExternalChanges, getFileState, type ExternalChange } from './external';
export { reconcilePending, listPendingOperations } from './operations';
export { pruneSnapshots, DEFAULT_MAX_SNAPSHOTS_PER_FILE, type SnapshotPruneResult } from './prune';
export { exportAudits, AUDIT_EXPORT_FORMATS, type AuditExportFormat, type ExportAuditsInput } from './export';
export type { RollbackRecord } from './rows';
export type { ConflictRegion } from './reverse';
