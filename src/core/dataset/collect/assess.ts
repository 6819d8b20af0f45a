// A draft's assessment before it is stored: quality score, PII spans and the redacted copy, matched
// correction patterns, and the annotation status with the reasons for it (seed 000's review and
// auto-approve criteria). No database: the caller brings the decision's facts.
import type { AnnotationStatus } from '../../../shared/domain';
import type { CollectDecisionRow } from '../../db/repositories/collect';
import { matchFutureCorrections, type FutureCorrection } from '../../guardian/corrections';
import type { DetectOptions } from '../../pii/types';
import type { DatasetCollectionConfig } from '../config';
import { isObjection } from '../feedback';
import { redactContent, scanContent, type Detect, type ScanCache, type StoredPiiSpan } from '../privacy';
import { scoreQuality, type QualityFactors } from '../quality';
import type { AnnotatedTurnSample, SampleFeedback, SampleLabels } from '../types';
import type { Draft } from './rules';

/** What assessment needs that lasts the whole run. */
export interface AssessContext {
  cfg: DatasetCollectionConfig;
  autoApprove: boolean;
  detect: Detect | null;
  detectOpts: DetectOptions;
  /** Context windows overlap from turn to turn: the same message is scanned for PII once. */
  piiCache: ScanCache;
  futureCorrections: FutureCorrection[];
}

/** What the samples of one decision share. */
export interface DecisionSignals {
  signals: SampleFeedback[];
  signalTypes: string[];
  objection: boolean;
  conversationText: string;
}

export interface Assessment {
  score: number | null;
  factors: QualityFactors | null;
  spans: StoredPiiSpan[];
  redacted: unknown;
  labels: SampleLabels;
  status: AnnotationStatus;
}

export function assessDraft(a: AssessContext, d: CollectDecisionRow, draft: Draft, f: DecisionSignals): Assessment {
  const { cfg } = a;
  const quality = cfg.qualityScoring.enabled
    ? scoreQuality(
        {
          userMessage: d.user_message_content,
          agentMessage: d.agent_message_content,
          conversationLength: draft.type === 'annotated_turn' ? (draft.content as AnnotatedTurnSample).context.length : 2,
          reason: draft.evidence === 'curator_correction' ? 'corrected by a curator' : d.reason,
          rawResponse: d.raw_response,
          fact: draft.fact,
          labelIsNoWrite: !draft.labeledWrite,
          evidence: draft.evidence,
          followingSignals: f.signalTypes,
        },
        f.conversationText,
        cfg.qualityScoring.weights,
      )
    : { score: null as number | null, factors: null as QualityFactors | null };
  const spans = a.detect ? scanContent(draft.content, a.detect, a.detectOpts, a.piiCache) : [];
  const redacted = spans.length ? redactContent(draft.content, spans).redacted : null;
  const labels: SampleLabels = { evidence: draft.evidence, ...draft.labels };
  matchPatterns(a.futureCorrections, d, draft, labels);
  const review = reviewReasons(cfg, draft, quality, spans.length > 0, labels, f);
  const auto = autoApproveReasons(cfg, draft, quality.score, labels, review.length > 0);
  let status: AnnotationStatus = 'pending';
  if (a.autoApprove && auto.length && (!review.length || auto.includes('hasConfirmedCorrection'))) status = 'auto_approved';
  else if (review.length) status = 'needs_review';
  if (review.length) labels.reviewReasons = review;
  if (auto.length) labels.autoApproveReasons = auto;
  return { score: quality.score, factors: quality.factors, spans, redacted, labels, status };
}

/** seed 000's approved patterns: corrections a curator asked to apply to future, similar cases. */
function matchPatterns(corrections: FutureCorrection[], d: CollectDecisionRow, draft: Draft, labels: SampleLabels): void {
  const later = corrections.filter((c) => c.correctedAt <= d.created_at && c.id !== draft.correctionId);
  if (!later.length) return;
  const matchText = `${draft.fact ?? ''}\n${d.user_message_content}`;
  for (const match of matchFutureCorrections(later, { text: matchText, targetFile: draft.targetFile })) {
    const c = match.correction;
    const agrees = (c.correctedStatus === 'refused') === !draft.labeledWrite;
    if (agrees) labels.matchesApprovedPattern ??= c.id;
    else labels.patternConflict ??= c.id;
  }
}

function reviewReasons(
  cfg: DatasetCollectionConfig,
  draft: Draft,
  quality: { score: number | null; factors: QualityFactors | null },
  hasPii: boolean,
  labels: SampleLabels,
  f: DecisionSignals,
): string[] {
  const review: string[] = [];
  const m = cfg.manualReviewCriteria;
  const score = quality.score;
  if (m.lowConfidence && quality.factors && quality.factors.decisionConfidence < cfg.qualityScoring.lowConfidenceThreshold)
    review.push('lowConfidence');
  if (m.containsSensitiveInfo && hasPii) review.push('containsSensitiveInfo');
  if (m.userFeedbackReceived && f.signals.some((s) => isObjection(s) || s.type === 'confusion')) review.push('userFeedbackReceived');
  if (score !== null && score < cfg.positiveCriteria.minQualityScore) {
    if (m.mediumQualityScore && score >= 0.5) review.push('mediumQualityScore');
    else if (score < 0.5) review.push('lowQualityScore');
  }
  if (labels.patternConflict) review.push('conflictsWithCorrectionPattern');
  if (labels.userLaterRequestedSimilar) review.push('userLaterRequestedSimilar');
  if (draft.type === 'memory_gate_positive' && cfg.positiveCriteria.noUserObjection && f.objection) review.push('userObjection');
  return review;
}

function autoApproveReasons(
  cfg: DatasetCollectionConfig,
  draft: Draft,
  score: number | null,
  labels: SampleLabels,
  needsReview: boolean,
): string[] {
  const auto: string[] = [];
  const a = cfg.autoApproveCriteria;
  if (a.hasConfirmedCorrection && draft.evidence === 'curator_correction') auto.push('hasConfirmedCorrection');
  if (!needsReview && !labels.withinRollbackWindow) {
    if (a.highQualityScore && score !== null && score >= cfg.qualityScoring.highThreshold) auto.push('highQualityScore');
    if (a.matchesApprovedPattern && labels.matchesApprovedPattern) auto.push('matchesApprovedPattern');
  }
  return auto;
}
