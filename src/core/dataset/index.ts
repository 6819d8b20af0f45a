// Dataset curation: collect, score, protect privacy, dedupe, review and export (issue 5).
export { datasetCollectionConfigSchema, defaultDatasetConfig, resolveDatasetConfig, DEFAULT_REDACT_PATTERNS } from './config';
export type { DatasetCollectionConfig, DatasetCollectionConfigInput } from './config';
export { collectSamples, type CollectOptions, type CollectRunSummary } from './collect';
export {
  listSamples,
  getSample,
  reviewSample,
  undoLastReview,
  setPiiSpanDecision,
  type ListSamplesInput,
  type SamplePage,
  type ReviewAction,
  type ReviewInput,
  type PiiSpanDecisionInput,
  type UndoResult,
} from './review';
export { datasetStats, qualityReport, type QualityReport, type FactorSummary } from './stats';
export {
  exportDataset,
  exportSelectionCounts,
  previewExport,
  dataFileName,
  type ExportOptions,
  type ExportResult,
  type ExportedFile,
  type PreviewRecord,
} from './export';
export { TRAINING_FORMATS, PREFERENCE_FORMATS } from './exportPlan';
export { markMissedWrite, type MissedWriteInput, type MissedWriteResult } from './missedWrite';
export { reclusterSamples, teachingUnit } from './dedupe';
export { validateSampleContent } from './sampleSchema';
export { TARGET_MODELS, type TargetModel } from './config';
export { detectFeedbackSignals, FEEDBACK_TYPES, type FeedbackSignal, type FeedbackType } from './feedback';
export { minhash, similarity, fingerprint, normalizeText, jaccard } from './similarity';
export { scoreQuality, type QualityFactors } from './quality';
export type { StoredPiiSpan } from './privacy';
export * from './types';
export * from './formats';
export { sampleCluster, pickRepresentative, nearDuplicateCounts } from './clusters';
export { writerQuality, isoWeek } from './writerQuality';
export { exportEvalSet, type EvalExportOptions, type EvalExportResult } from './evalExport';
