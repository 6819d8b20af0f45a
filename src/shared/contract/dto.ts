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

// ---- dataset ----
export interface QualityFactors {
  conversationClarity: number;
  decisionConfidence: number;
  factVerifiability: number;
}
export interface FeedbackSignalDto {
  kind: 'reject' | 'correction' | 'constraint' | 'success' | 'confusion' | 'preference' | string;
  evidence: string;
  turnId?: string;
}
export type PiiSpanDecision = 'redact' | 'keep';
export interface PiiSpanDto {
  id: string;
  type: string;
  start: number;
  end: number;
  value: string;
  confidence: number;
  detector: string;
  /** The curator's choice; default is redact. */
  decision: PiiSpanDecision;
  /** Which text of the sample the offsets refer to (e.g. "conversation.0.message"); absent = the whole content text. */
  field?: string;
}
export interface SampleRow {
  id: string;
  sampleType: SampleType;
  sessionId: string;
  turnId: string | null;
  decisionId: string | null;
  auditId: string | null;
  qualityScore: number | null;
  annotationStatus: AnnotationStatus;
  containsPii: boolean;
  collectionStrategy: string | null;
  clusterId: string | null;
  createdAt: number;
  annotatedAt: number | null;
  /** A one-line summary for list views (the fact or the user message). */
  summary: string;
  /** Other samples in its near-duplicate cluster (list views show "3 near-duplicates"). */
  nearDuplicates?: number;
}
export interface SampleDetail extends SampleRow {
  content: unknown;
  qualityFactors: QualityFactors | null;
  annotatedBy: string | null;
  annotationNotes: string | null;
  piiRedactedContent: string | null;
  piiSpans: PiiSpanDto[];
  feedbackSignals: FeedbackSignalDto[];
  turn: TurnDto | null;
  context: ContextItemDto[];
  decision: GateDecisionRow | null;
  audit: AuditRow | null;
}
export type ReviewAction = 'approve' | 'reject' | 'needs_review' | 'edit';
export interface ReviewOutcome {
  sample: SampleRow;
  /** The review event recorded, for undo. */
  reviewId: string;
  previousStatus: AnnotationStatus;
}
export interface UndoOutcome {
  /** The review that was undone; null when there was nothing to undo. */
  reviewId: string | null;
  sample: SampleRow | null;
}
export interface CollectResult {
  dryRun: boolean;
  scanned: number;
  added: number;
  skippedDuplicates: number;
  byType: Partial<Record<SampleType, number>>;
  byStatus: Partial<Record<AnnotationStatus, number>>;
  elapsedMs: number;
}
export interface DatasetStatsBucket {
  key: string;
  count: number;
}
export interface DatasetStats {
  total: number;
  byStatus: Partial<Record<AnnotationStatus, number>>;
  byType: Partial<Record<SampleType, number>>;
  daily: DatasetStatsBucket[];
  /** Ten buckets over [0,1]: key "0.0-0.1", ... */
  qualityDistribution: DatasetStatsBucket[];
  reviewed: number;
}
export interface ExportFileDto {
  /** File name inside the export folder (no directories). */
  name: string;
  role: 'train' | 'validation' | 'card' | 'dataset_info' | 'other';
  bytes: number;
  sha256: string;
  /** A name that says what the file is once downloaded: <workspace>-<format>-<date>.<split>.jsonl. */
  downloadName?: string;
}
export interface ExportRow {
  id: string;
  name: string;
  format: ExportFormat;
  sampleTypes: SampleType[];
  totalSamples: number;
  trainSamples: number;
  validationSamples: number;
  avgQualityScore: number | null;
  includePii: boolean;
  /** Folder (or main file) the export wrote. */
  path: string;
  bytes: number | null;
  checksum: string | null;
  files: ExportFileDto[];
  exportedBy: string | null;
  exportedAt: number;
  /** What the export included, label balance, folded near-duplicates, tokens, languages, notes (null for old exports). */
  summary: ExportSummaryDto | null;
}
export interface ExportSummaryDto {
  included: { statuses: string[]; minQuality: number | null; sampleTypes: SampleType[]; balanced: boolean };
  balance: {
    memory_gate: { write: number; no_write: number };
    write_guardian: { write: number; refuse: number; skip: number };
    kto?: { desirable: number; undesirable: number };
  };
  folded: { approved: number; total: number; samples: { sampleId: string; keptSampleId: string }[] };
  identicalDropped: { count: number; sampleIds: string[] };
  balancedOut: number;
  tokens: { model: string; encoding: string; limit: number; total: number; max: number; overLimit: number; sampleIds: string[] } | null;
  languages: string[];
  split: { by: 'session' | 'turn'; requested: number; achieved: number | null; validationWritten: boolean };
  csvCellsTruncated: number;
  notes: string[];
}
export interface SampleClusterMember {
  id: string;
  sampleType: string;
  annotationStatus: string;
  qualityScore: number | null;
  corrected: boolean;
  edited: boolean;
  picked: boolean;
  createdAt: number;
}
export interface SampleCluster {
  clusterId: string;
  members: SampleClusterMember[];
  representativeId: string;
  representativeBecause: 'pick' | 'corrected' | 'edited' | 'first';
}
export interface WriterQualityDto {
  judgedDecisions: number;
  gateAccuracy: number | null;
  gate: { decision: string; predicted: number; support: number; precision: number | null; recall: number | null }[];
  guardian: { action: 'write' | 'refuse' | 'skip'; judged: number; correct: number; accuracy: number | null }[];
  overWriteRate: number | null;
  overWrites: number;
  judgedWrites: number;
  churn: { file: string; writes: number; rollbacks: number; corrections: number; churn: number | null }[];
  weekly: { week: string; judged: number; accuracy: number | null; overWriteRate: number | null }[];
}
export interface MissedWriteOutcome {
  correctionId: string;
  decision: string;
  addedSamples: number;
  supersededSamples: number;
}
export interface ExportPreview {
  format: ExportFormat;
  /** The first records exactly as they will be written (one JSONL line or CSV row each). */
  records: string[];
  fileName: string;
  /** How many samples the export would contain with these options. */
  total: number;
  includePii: boolean;
  /** Samples among `total` that contain PII (a warning when includePii is on). */
  withPii: number;
}

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

