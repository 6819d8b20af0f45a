// Outputs of the write_guardian calls: audits, diffs, file history, rollback, retry and corrections. The services
// in src/core/guardian return these, so a handler only calls the service. Plain JSON data; times are epoch ms.
import type { AuditSource, AuditStatus, LineChanges, MemoryFileName } from '../domain';
import type { AuditRow, GateDecisionRow, TurnDto } from './records';

export interface RollbackDto {
  id: string;
  auditId: string;
  rolledBackAt: number;
  rolledBackBy: string;
  reason: string;
  restoredSnapshotId: string | null;
  previousStatus: string;
  mode: 'restore' | 'reverse_patch' | 'force';
  rollbackAuditId: string | null;
}
export interface CorrectionDto {
  id: string;
  auditId: string;
  originalStatus: string;
  originalCandidateFact: string | null;
  originalTargetFile: string | null;
  correctedStatus: 'written' | 'refused';
  correctedCandidateFact: string | null;
  correctedTargetFile: MemoryFileName | null;
  correctionReason: string;
  applyToFuture: boolean;
  correctionPattern: string | null;
  correctedBy: string;
  correctedAt: number;
  retryAuditId: string | null;
}
export interface AuditDetail {
  audit: AuditRow & { diff: string | null; llmModel: string | null; latencyMs: number | null; metadata: Record<string, unknown> | null };
  decision: GateDecisionRow | null;
  turn: TurnDto | null;
  /** The rollback that undid this audit, if any. */
  rollback: RollbackDto | null;
  /** When this audit is itself a rollback's write: the rollback it records. */
  recordsRollback: RollbackDto | null;
  related: AuditRow | null;
  /** Later workbench writes that point back at this one (retries, rollbacks). */
  followUps: AuditRow[];
  corrections: CorrectionDto[];
  /** Where the file stands now relative to this write. */
  file: { name: MemoryFileName; exists: boolean; matchesAfter: boolean | null };
}
export interface AuditDiff {
  auditId: string;
  fileName: MemoryFileName;
  /** Content before the write; null when the write created the file (or it is unknown). */
  before: string | null;
  /** Content after the write; null when the write deleted the file (or it is unknown). */
  after: string | null;
  /** Unified diff text; null when the write's content was not recorded. */
  diff: string | null;
  lineChanges: LineChanges | null;
}
export interface FileVersion {
  auditId: string;
  fileName: MemoryFileName;
  status: AuditStatus;
  source: AuditSource;
  /** Who made the change: the plugin (with model and session), an external edit, or the curator who rolled back or retried. */
  actor: string;
  /** Why: the fact written, or the rollback or retry reason. */
  reason: string | null;
  sessionId: string | null;
  candidateFact: string | null;
  relatedAuditId: string | null;
  /** The snapshot of the file after this write. */
  snapshotId: string | null;
  contentHash: string | null;
  lineChanges: LineChanges | null;
  createdAt: number;
  /** Set when this version was later rolled back. */
  rolledBack: { at: number; by: string; reason: string; rollbackAuditId: string | null } | null;
}
export interface RollbackConflict {
  message: string;
  /** The file as it is on disk now. */
  current: string | null;
  /** Hunks of this write's change that no longer apply, as unified diff text. */
  conflictingDiff?: string;
}
/** preview: a dry run that would apply; rolled_back: applied; conflict: later changes overlap, nothing written. */
export type RollbackStatus = 'preview' | 'rolled_back' | 'conflict';
/** A conflict is a result variant, not an error: read `status`, then `conflict` for what overlaps. */
export interface RollbackOutcome {
  status: RollbackStatus;
  auditId: string;
  dryRun: boolean;
  /** restore: file matched the after-snapshot; reverse_patch: later writes kept; force: restored anyway. */
  mode: 'restore' | 'reverse_patch' | 'force' | null;
  fileName: MemoryFileName;
  /** The file as it reads (dry run: would read) after the rollback; null = the file is deleted. */
  resultContent: string | null;
  /** Diff from the current file to resultContent. */
  diff: string | null;
  conflict: RollbackConflict | null;
  rollbackId: string | null;
  rollbackAuditId: string | null;
}
/** One write of a session rollback: what happened (or would) to it, with what the curator needs to choose. */
export interface SessionRollbackItemDto extends Omit<RollbackOutcome, 'status'> {
  /** skipped: left alone on the curator's choice; refused: not undoable (already rolled back, unknown content). */
  status: RollbackStatus | 'skipped' | 'refused';
  createdAt?: number;
  candidateFact?: string | null;
  /** Why it was refused when it is not a content conflict (already rolled back, unknown content). */
  error?: string | null;
}
export interface SessionRollbackOutcome {
  sessionId: string;
  dryRun: boolean;
  /** Newest first, as applied. */
  results: SessionRollbackItemDto[];
  rolledBack: number;
  refused: number;
}
export interface RetryOutcome {
  originalAuditId: string;
  dryRun: boolean;
  targetFile: MemoryFileName;
  /** The full file content the retry writes (dry run: would write). The UI opens it in an editor. */
  content: string;
  /** Current content of the target file, for a diff view. */
  currentContent: string | null;
  diff: string | null;
  /** The new audit recorded for the retry; null on a dry run. */
  auditId: string | null;
}

export interface AuditStatusCount {
  status: AuditStatus;
  count: number;
}
