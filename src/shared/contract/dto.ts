// Output types of the API contract: plain, JSON-serializable data (no Dates, no class instances),
// so the same value crosses Electron IPC (structured clone) and browser-mode HTTP (JSON) unchanged.
// Times are epoch milliseconds. Pure TypeScript: no node or electron imports.
import type {
  AnnotationStatus,
  ExportFormat,
  SampleType,
} from '../domain';
import type { AuditRow, ContextItemDto, GateDecisionRow, TurnDto } from './records';

export type { Page } from '../paging';

// ---- imports ----
export interface ImportSkip {
  file: string;
  line: number;
  reason: string;
}
export interface ImportReport {
  source: 'reflection-logs' | 'openclaw' | 'evals' | 'daily-notes';
  /** Rows added per table. */
  added: Record<string, number>;
  skipped: number;
  skips: ImportSkip[];
  filesRead: number;
  elapsedMs: number;
  summary: string;
}

// ---- eval runs and daily notes (importers) ----
export interface EvalModelScoreDto {
  modelId: string;
  modelLabel: string | null;
  runId: string;
  runAt: number;
  total: number;
  passed: number;
  /** Passed among the scenarios every model of the suite ran: the fair comparison. */
  commonPassed: number;
  errors: Record<string, number>;
}
export interface EvalSuiteComparisonDto {
  suite: string;
  commonScenarios: number;
  models: EvalModelScoreDto[];
  /** Scenario by scenario: model id -> passed; hardest first. */
  scenarios: Array<{ scenarioId: string; results: Record<string, boolean> }>;
}
export interface DailyNoteDto {
  /** YYYY-MM-DD */
  date: string;
  path: string;
  content: string;
  updatedAt: number;
}
export interface DailyNoteHit {
  date: string;
  path: string;
  snippet: string;
  matches: Array<{ start: number; end: number }>;
}

// ---- opt-out, retention, conversation archives ----
export type ExclusionKind = 'session' | 'target' | 'account';
export interface ExclusionDto {
  id: string;
  kind: ExclusionKind;
  /** A session key, "<channel>:<target>", or an account id. */
  value: string;
  reason: string | null;
  createdBy: string | null;
  createdAt: number;
  /** Sessions it matches now (later sessions of a target or account are matched as they appear). */
  sessions: number;
}
export interface PurgeOutcome {
  exclusion: ExclusionDto;
  sessionIds: string[];
  /** Rows removed (or, in a dry run, that would be removed) per table. */
  deleted: Record<string, number>;
  dryRun: boolean;
}
export interface PruneKept {
  table: string;
  reason: string;
  count: number;
}
export interface PruneOutcome {
  days: number;
  /** Rows created before this instant are old. */
  cutoff: number;
  dryRun: boolean;
  /** Rows removed (or, in a dry run, that would be removed) per table. */
  deleted: Record<string, number>;
  /** Old rows that stay, and why (approved dataset sample, correction, rollback, ...). */
  kept: PruneKept[];
  freedPages: number;
  /** From a dry run: pass it with confirm to delete exactly what the preview listed. */
  previewToken: string;
  /** Up to when a backup or conversation archive holds the data (null: none does). */
  safeCopyUntil: number | null;
  /** The deletion reaches data no copy holds: a real run needs force. */
  needsForce: boolean;
}
export interface ConversationExportResult {
  file: string;
  turns: number;
  bytes: number;
}
export interface SettingsValidation {
  /** No problem found: every value is used as given. */
  valid: boolean;
  /** One line per ignored value, naming it. */
  problems: string[];
  /** The effective settings (defaults in place of ignored values). */
  values: Record<string, unknown>;
  /** What was validated: the stored workbench.json, or the object passed in. */
  source: 'file' | 'input';
  file: string;
}

