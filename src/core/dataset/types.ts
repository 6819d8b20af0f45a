// Sample contents: seed 000's four sample shapes, plus the gate's reason (the seed's Alpaca output needs it).
import type { AnnotationStatus, GateDecision, SampleType } from '../../shared/domain';
import type { QualityFactors } from './quality';
import type { StoredPiiSpan } from './privacy';

export interface Message {
  role: 'user' | 'agent';
  message: string;
}

export interface MemoryGatePositiveSample {
  type: 'memory_gate_positive';
  conversation: Message[];
  correctDecision: GateDecision;
  correctFact: string;
  reason: string;
  /** missedWrite: the gate said NO_WRITE and a curator said it should have written this fact. */
  evidence: { wasWritten: boolean; userFeedback?: 'confirmed' | 'corrected'; missedWrite?: boolean };
}

export interface MemoryGateNegativeSample {
  type: 'memory_gate_negative';
  conversation: Message[];
  incorrectDecision: GateDecision;
  incorrectFact: string;
  correctDecision: GateDecision;
  /** Set when the correct decision writes something (a correction to another fact or file). */
  correctFact?: string;
  rejectionReason: string;
  /** memory_gate's own reason for the wrong decision (the non-preferred output of a preference pair). */
  originalReason?: string;
}

export interface WriteGuardianSample {
  type: 'write_guardian_decision';
  candidateFact: string;
  targetFile: string;
  /** The file before the write, for written and refused alike: both decisions see the same input. */
  currentFileContent: string;
  decision: 'written' | 'refused' | 'skipped';
  reason?: string;
  /** The file after the write (the guardian's output), when it wrote. */
  newFileContent?: string;
  userCorrection?: {
    originalDecision: 'written' | 'refused' | 'skipped';
    correctedDecision: 'written' | 'refused';
    reason: string;
    correctedFact?: string;
    correctedTargetFile?: string;
  };
}

export interface GateOutput {
  decision: GateDecision;
  reason: string;
  candidateFact?: string;
}

export interface GuardianOutput {
  status: 'written' | 'refused' | 'failed' | 'skipped';
  reason?: string;
  targetFile?: string;
  candidateFact?: string;
}

export type TurnLabel = 'correct' | 'incorrect' | 'corrected';

export interface AnnotatedTurnSample {
  type: 'annotated_turn';
  conversationId: string;
  turnNumber: number;
  context: Message[];
  memoryGate: {
    input: { currentUserMessage: string; currentAgentReply: string };
    output: GateOutput;
    label: TurnLabel;
    correctedOutput?: GateOutput;
  };
  writeGuardian: {
    input: { candidateFact: string; targetFile: string; currentContent: string };
    output: GuardianOutput;
    label: TurnLabel;
    correctedOutput?: GuardianOutput;
  };
}

export type SampleContent = MemoryGatePositiveSample | MemoryGateNegativeSample | WriteGuardianSample | AnnotatedTurnSample;

export interface SampleLabels {
  evidence?: string;
  criteria?: Record<string, boolean>;
  reviewReasons?: string[];
  autoApproveReasons?: string[];
  matchesApprovedPattern?: string;
  patternConflict?: string;
  userLaterRequestedSimilar?: boolean;
  duplicateOf?: string;
  relatedSampleIds?: string[];
  withinRollbackWindow?: boolean;
  /** The missed-write correction (dataset_gate_corrections) a sample comes from. */
  gateCorrectionId?: string;
}

export interface SampleFeedback {
  type: string;
  confidence: number;
  evidence: string;
  turnId: string;
  rule: string;
}

/** One dataset sample as services return it (seed 000's DatasetSampleRecord, extended). */
export interface DatasetSample {
  id: string;
  sampleType: SampleType;
  turnId: string | null;
  decisionId: string | null;
  auditId: string | null;
  correctionId: string | null;
  sessionId: string;
  content: SampleContent;
  qualityScore: number | null;
  qualityFactors: QualityFactors | null;
  annotationStatus: AnnotationStatus;
  annotatedBy: string | null;
  annotatedAt: number | null;
  annotationNotes: string | null;
  privacyChecked: boolean;
  containsPii: boolean;
  piiRedactedContent: SampleContent | null;
  piiSpans: StoredPiiSpan[];
  feedbackSignals: SampleFeedback[];
  fingerprint: string | null;
  clusterId: string | null;
  labels: SampleLabels;
  sourceKey: string;
  collectionStrategy: string | null;
  createdAt: number;
}

// The stored row and its column list live with the sample repositories (the only place with SQL).
export { SAMPLE_COLUMNS, type StoredSampleRow } from '../db/repositories/samples';
import type { StoredSampleRow } from '../db/repositories/samples';

const parse = <T>(s: string | null, fallback: T): T => (s ? (JSON.parse(s) as T) : fallback);

export function sampleFromRow(r: StoredSampleRow): DatasetSample {
  return {
    id: r.id,
    sampleType: r.sample_type,
    turnId: r.turn_id,
    decisionId: r.decision_id,
    auditId: r.audit_id,
    correctionId: r.correction_id,
    sessionId: r.session_id,
    content: JSON.parse(r.content) as SampleContent,
    qualityScore: r.quality_score,
    qualityFactors: parse<QualityFactors | null>(r.quality_factors, null),
    annotationStatus: r.annotation_status,
    annotatedBy: r.annotated_by,
    annotatedAt: r.annotated_at,
    annotationNotes: r.annotation_notes,
    privacyChecked: r.privacy_checked === 1,
    containsPii: r.contains_pii === 1,
    piiRedactedContent: parse<SampleContent | null>(r.pii_redacted_content, null),
    piiSpans: parse<StoredPiiSpan[]>(r.pii_spans, []),
    feedbackSignals: parse<SampleFeedback[]>(r.feedback_signals, []),
    fingerprint: r.fingerprint,
    clusterId: r.cluster_id,
    labels: parse<SampleLabels>(r.labels, {}),
    sourceKey: r.source_key,
    collectionStrategy: r.collection_strategy,
    createdAt: r.created_at,
  };
}
