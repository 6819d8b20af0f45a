// Collection's rules (seed 000's DatasetCollectionStrategy): what samples one recorded decision teaches.
// Pure: the decision's facts come in (its turn, context, plugin audit, following signals) and drafts go
// out; the few lookups a rule needs only sometimes (a correction, a snapshot) come through FactLookups,
// so the rules run without a database in tests.
import type { GateDecision, SampleType } from '../../../shared/domain';
import { decisionForFile, fileForDecision } from '../../../shared/domain';
import type { CollectAuditRow, CollectCorrectionRow, CollectDecisionRow, CollectGateCorrectionRow } from '../../db/repositories/collect';
import type { DatasetCollectionConfig } from '../config';
import { isRememberRequest } from '../feedback';
import type { LabelEvidence } from '../quality';
import { jaccard } from '../similarity';
import type { AnnotatedTurnSample, Message, SampleContent, SampleLabels, TurnLabel } from '../types';

export interface Draft {
  type: SampleType;
  sourceKey: string;
  strategy: string;
  content: SampleContent;
  evidence: LabelEvidence;
  fact: string | null;
  auditId?: string;
  correctionId?: string;
  /** The decision the sample says is right, for pattern agreement. */
  labeledWrite: boolean;
  targetFile?: string | null;
  labels: SampleLabels;
}

export interface LaterTurn {
  id: string;
  text: string;
}

/** What collection knows about one decision before the rules run. */
export interface DecisionFacts {
  d: CollectDecisionRow;
  /** The context window ending with the judged turn, oldest first. */
  conversation: Message[];
  /** The decision's plugin audit, if the gate proposed a write and write_guardian judged it. */
  audit?: CollectAuditRow;
  /** Feedback signal types of the following turns, in order. */
  signalTypes: string[];
  objection: boolean;
  laterTurns: LaterTurn[];
}

/** Lookups a rule needs only for some decisions. */
export interface FactLookups {
  correctionOf(auditId: string): CollectCorrectionRow | undefined;
  gateCorrectionOf(decisionId: string): CollectGateCorrectionRow | undefined;
  laterWriteOf(turnId: string): { decision: GateDecision; candidate_fact: string | null } | undefined;
  /** The target file as write_guardian saw it (its before snapshot, else the newest one at that time). */
  fileBefore(audit: CollectAuditRow): string;
  fileAfter(audit: CollectAuditRow): string | undefined;
}

const DAY = 86_400_000;

/** The drafts one decision yields, in a fixed order. */
export function draftsFor(f: DecisionFacts, look: FactLookups, cfg: DatasetCollectionConfig, now: number): Draft[] {
  if (f.d.decision === 'NO_WRITE') return noWriteDrafts(f, look, cfg);
  if (!f.audit && cfg.positiveCriteria.wasWritten) return [];
  const audit = f.audit;
  const correction = audit ? look.correctionOf(audit.id) : undefined;
  const rolledBack = Boolean(audit && (audit.rolled_back_at !== null || audit.status === 'rolled_back'));
  const rollbackAge = audit && audit.rolled_back_at !== null ? audit.rolled_back_at - audit.created_at : 0;
  const w: WriteOutcome = {
    audit,
    correction,
    rolledBackInWindow: rolledBack && rollbackAge <= cfg.positiveCriteria.notRolledBackWithinDays * DAY,
    written: Boolean(audit && (audit.status === 'written' || audit.status === 'rolled_back')),
    refused: audit?.status === 'refused',
    skipped: audit?.status === 'skipped',
  };
  const drafts = gateDrafts(f, w, cfg, now);
  if (audit && (w.written || w.refused || w.skipped)) drafts.push(...guardianDrafts(f, { ...w, audit }, look));
  return drafts;
}

interface WriteOutcome {
  audit?: CollectAuditRow;
  correction?: CollectCorrectionRow;
  rolledBackInWindow: boolean;
  written: boolean;
  refused: boolean;
  skipped: boolean;
}

/**
 * A NO_WRITE decision teaches "do not write" (a positive whose decision is NO_WRITE), unless the
 * curator marked it a missed write (a positive with the curator's fact and file, and the negative
 * pair for preference data) or the user later asked to remember the same thing (a negative).
 */
function noWriteDrafts(f: DecisionFacts, look: FactLookups, cfg: DatasetCollectionConfig): Draft[] {
  const { d, conversation } = f;
  const missed = look.gateCorrectionOf(d.id);
  if (missed) return missedWriteDrafts(d, conversation, missed);
  // userLaterRequestedSimilar: the gate said NO_WRITE, then the user asked to remember something like it
  const later = cfg.negativeCriteria.userLaterRequestedSimilar
    ? f.laterTurns.find((t) => isRememberRequest(t.text) && jaccard(t.text, d.user_message_content) >= cfg.dedupe.relatedThreshold)
    : undefined;
  if (later) {
    const laterWrite = look.laterWriteOf(later.id);
    const laterDecision = laterWrite?.decision ?? 'UPDATE_MEMORY';
    const laterFact = laterWrite?.candidate_fact ?? null;
    return [
      {
        type: 'memory_gate_negative',
        sourceKey: `neg:later:${d.id}`,
        strategy: 'user_later_requested_similar',
        content: {
          type: 'memory_gate_negative',
          conversation,
          incorrectDecision: 'NO_WRITE',
          incorrectFact: '',
          correctDecision: laterDecision,
          ...(laterFact ? { correctFact: laterFact } : {}),
          rejectionReason: `The user later asked to remember this: "${later.text.slice(0, 200)}"`,
          originalReason: d.reason,
        },
        evidence: 'user_request',
        fact: laterFact,
        labeledWrite: true,
        targetFile: fileForDecision(laterDecision),
        labels: { userLaterRequestedSimilar: true },
      },
    ];
  }
  return [
    {
      type: 'memory_gate_positive',
      sourceKey: `pos:nowrite:${d.id}`,
      strategy: 'gate_no_write',
      content: {
        type: 'memory_gate_positive',
        conversation,
        correctDecision: 'NO_WRITE',
        correctFact: '',
        reason: d.reason,
        evidence: { wasWritten: false },
      },
      evidence: 'gate_no_write',
      fact: null,
      labeledWrite: false,
      labels: {},
    },
  ];
}

/** The curator's missed write: a positive with their fact and file, and the negative pair for preference data. */
function missedWriteDrafts(d: CollectDecisionRow, conversation: Message[], missed: CollectGateCorrectionRow): Draft[] {
  const labels = (): SampleLabels => ({ gateCorrectionId: missed.id });
  const shared = {
    strategy: 'missed_write',
    evidence: 'curator_correction' as const,
    fact: missed.corrected_fact,
    labeledWrite: true,
    targetFile: missed.corrected_target_file,
  };
  return [
    {
      ...shared,
      type: 'memory_gate_positive',
      sourceKey: `pos:missed:${missed.id}`,
      labels: labels(),
      content: {
        type: 'memory_gate_positive',
        conversation,
        correctDecision: missed.corrected_decision,
        correctFact: missed.corrected_fact,
        reason: missed.reason,
        evidence: { wasWritten: false, userFeedback: 'corrected', missedWrite: true },
      },
    },
    {
      ...shared,
      type: 'memory_gate_negative',
      sourceKey: `neg:missed:${missed.id}`,
      labels: labels(),
      content: {
        type: 'memory_gate_negative',
        conversation,
        incorrectDecision: 'NO_WRITE',
        incorrectFact: '',
        correctDecision: missed.corrected_decision,
        correctFact: missed.corrected_fact,
        rejectionReason: missed.reason,
        originalReason: d.reason,
      },
    },
  ];
}

/** The gate's sample of a proposed write: corrected, rolled back, refused, or a positive. */
function gateDrafts(f: DecisionFacts, w: WriteOutcome, cfg: DatasetCollectionConfig, now: number): Draft[] {
  const { d, conversation } = f;
  const { audit, correction } = w;
  const gateFact = d.candidate_fact ?? '';
  if (audit && correction && cfg.negativeCriteria.hasBehaviorCorrection) return correctionDrafts(f, audit, correction);
  if (w.rolledBackInWindow) {
    return [
      {
        type: 'memory_gate_negative',
        sourceKey: `neg:rollback:${audit!.id}`,
        strategy: 'rollback',
        content: {
          type: 'memory_gate_negative',
          conversation,
          incorrectDecision: d.decision,
          incorrectFact: gateFact,
          correctDecision: 'NO_WRITE',
          rejectionReason: audit!.rollback_reason ?? 'The write was rolled back.',
          originalReason: d.reason,
        },
        evidence: 'rollback',
        fact: null,
        auditId: audit!.id,
        labeledWrite: false,
        labels: {},
      },
    ];
  }
  if (w.refused) {
    if (!(cfg.negativeCriteria.gateProposedWrite && cfg.negativeCriteria.guardianRefused)) return [];
    return [
      {
        type: 'memory_gate_negative',
        sourceKey: `neg:${d.id}`,
        strategy: 'guardian_refused',
        content: {
          type: 'memory_gate_negative',
          conversation,
          incorrectDecision: d.decision,
          incorrectFact: gateFact,
          correctDecision: 'NO_WRITE',
          rejectionReason: audit!.reason ?? 'write_guardian refused the update.',
          originalReason: d.reason,
        },
        evidence: 'guardian_refused',
        fact: null,
        auditId: audit!.id,
        labeledWrite: false,
        labels: {},
      },
    ];
  }
  if (!w.written && cfg.positiveCriteria.wasWritten) return [];
  const labels: SampleLabels = {
    criteria: { wasWritten: w.written, noUserObjection: !f.objection, notRolledBackWithinDays: !w.rolledBackInWindow },
  };
  if (audit && now - audit.created_at < cfg.positiveCriteria.notRolledBackWithinDays * DAY) labels.withinRollbackWindow = true;
  return [
    {
      type: 'memory_gate_positive',
      sourceKey: `pos:${d.id}`,
      strategy: 'auto_positive',
      content: {
        type: 'memory_gate_positive',
        conversation,
        correctDecision: d.decision,
        correctFact: audit?.candidate_fact ?? gateFact,
        reason: d.reason,
        evidence: { wasWritten: w.written, ...(f.signalTypes.includes('success') ? { userFeedback: 'confirmed' as const } : {}) },
      },
      evidence: 'guardian_agreed',
      fact: audit?.candidate_fact ?? gateFact,
      auditId: audit?.id,
      labeledWrite: true,
      targetFile: fileForDecision(d.decision),
      labels,
    },
  ];
}

/**
 * A curator's correction of a write. One that refuses, or moves the fact to another file or wording,
 * makes the gate's output a negative; one that keeps a write also makes the corrected write a positive.
 */
function correctionDrafts(f: DecisionFacts, audit: CollectAuditRow, correction: CollectCorrectionRow): Draft[] {
  const { d, conversation } = f;
  const gateFact = d.candidate_fact ?? '';
  const correctedFile = correction.corrected_target_file ?? audit.target_file;
  const correctedDecision = decisionForFile(correctedFile);
  const correctedFact = correction.corrected_candidate_fact ?? audit.candidate_fact ?? gateFact;
  const negative = (correctDecision: GateDecision, correctFact: string | null): Draft => ({
    type: 'memory_gate_negative',
    sourceKey: `neg:corr:${correction.id}`,
    strategy: 'manual_correction',
    content: {
      type: 'memory_gate_negative',
      conversation,
      incorrectDecision: d.decision,
      incorrectFact: gateFact,
      correctDecision,
      ...(correctFact === null ? {} : { correctFact }),
      rejectionReason: correction.correction_reason,
      originalReason: d.reason,
    },
    evidence: 'curator_correction',
    fact: correctFact,
    correctionId: correction.id,
    auditId: audit.id,
    labeledWrite: correctFact !== null,
    ...(correctFact === null ? {} : { targetFile: correctedFile }),
    labels: {},
  });
  if (correction.corrected_status === 'refused') return [negative('NO_WRITE', null)];
  const drafts: Draft[] = [];
  const changed = correctedDecision !== d.decision || correctedFact.trim() !== gateFact.trim();
  if (changed) drafts.push(negative(correctedDecision, correctedFact));
  drafts.push({
    type: 'memory_gate_positive',
    sourceKey: `pos:corr:${correction.id}`,
    strategy: 'manual_correction',
    content: {
      type: 'memory_gate_positive',
      conversation,
      correctDecision: correctedDecision,
      correctFact: correctedFact,
      reason: correction.correction_reason,
      evidence: { wasWritten: true, userFeedback: 'corrected' },
    },
    evidence: 'curator_correction',
    fact: correctedFact,
    correctionId: correction.id,
    auditId: audit.id,
    labeledWrite: true,
    targetFile: correctedFile,
    labels: {},
  });
  return drafts;
}

type JudgedWrite = WriteOutcome & { audit: CollectAuditRow };

/**
 * What the write_guardian sample and the annotated turn of a write share (fresh labels for each). A
 * module function, not a closure: guardianDrafts runs for most decisions.
 */
function judgedWriteShared(w: JudgedWrite, evidence: LabelEvidence, wgFact: string) {
  const { audit, correction } = w;
  return {
    evidence,
    fact: wgFact,
    auditId: audit.id,
    correctionId: correction?.id,
    labeledWrite: correction ? correction.corrected_status === 'written' : !w.refused && !w.rolledBackInWindow,
    targetFile: audit.target_file,
    labels: {},
  };
}

/** write_guardian's sample of a judged write, and the annotated turn that pairs both steps. */
function guardianDrafts(f: DecisionFacts, w: JudgedWrite, look: FactLookups): Draft[] {
  const { d } = f;
  const { audit, correction } = w;
  const current = look.fileBefore(audit);
  const after = w.written && audit.after_snapshot_id ? look.fileAfter(audit) : undefined;
  const evidence: LabelEvidence = correction
    ? 'curator_correction'
    : w.rolledBackInWindow
      ? 'rollback'
      : w.refused
        ? 'guardian_refused'
        : 'guardian_agreed';
  const guardianDecision = w.refused ? 'refused' : w.skipped ? 'skipped' : 'written';
  const wgFact = audit.candidate_fact ?? d.candidate_fact ?? '';
  const wg: Draft = {
    type: 'write_guardian_decision',
    sourceKey: `wg:${audit.id}`,
    strategy: correction ? 'manual_correction' : 'auto_guardian',
    content: {
      type: 'write_guardian_decision',
      candidateFact: wgFact,
      targetFile: audit.target_file,
      currentFileContent: current,
      decision: guardianDecision,
      ...(audit.reason ? { reason: audit.reason } : {}),
      ...(after !== undefined ? { newFileContent: after } : {}),
      ...(correction
        ? {
            userCorrection: {
              originalDecision: guardianDecision,
              correctedDecision: correction.corrected_status,
              reason: correction.correction_reason,
              ...(correction.corrected_candidate_fact ? { correctedFact: correction.corrected_candidate_fact } : {}),
              ...(correction.corrected_target_file ? { correctedTargetFile: correction.corrected_target_file } : {}),
            },
          }
        : {}),
    },
    ...judgedWriteShared(w, evidence, wgFact),
  };
  const turn: Draft = {
    type: 'annotated_turn',
    sourceKey: `turn:${d.id}`,
    strategy: correction ? 'manual_correction' : 'auto_turn',
    content: annotatedTurn(f, w, current, guardianDecision, wgFact),
    ...judgedWriteShared(w, evidence, wgFact),
  };
  return [wg, turn];
}

function annotatedTurn(f: DecisionFacts, w: JudgedWrite, current: string, guardianDecision: string, wgFact: string): AnnotatedTurnSample {
  const { d, conversation } = f;
  const { audit, correction } = w;
  const gateLabel: TurnLabel = correction ? 'corrected' : w.rolledBackInWindow || w.refused ? 'incorrect' : 'correct';
  const guardianLabel: TurnLabel = correction ? 'corrected' : w.rolledBackInWindow ? 'incorrect' : 'correct';
  return {
    type: 'annotated_turn',
    conversationId: d.session_id,
    turnNumber: d.turn_number,
    context: conversation,
    memoryGate: {
      input: { currentUserMessage: d.user_message_content, currentAgentReply: d.agent_message_content },
      output: { decision: d.decision, reason: d.reason, ...(d.candidate_fact ? { candidateFact: d.candidate_fact } : {}) },
      label: gateLabel,
      ...(correction
        ? {
            correctedOutput:
              correction.corrected_status === 'refused'
                ? { decision: 'NO_WRITE' as GateDecision, reason: correction.correction_reason }
                : {
                    decision: decisionForFile(correction.corrected_target_file ?? audit.target_file),
                    reason: correction.correction_reason,
                    candidateFact: correction.corrected_candidate_fact ?? wgFact,
                  },
          }
        : {}),
    },
    writeGuardian: {
      input: { candidateFact: wgFact, targetFile: audit.target_file, currentContent: current },
      output: { status: guardianDecision as 'written' | 'refused' | 'skipped', ...(audit.reason ? { reason: audit.reason } : {}) },
      label: guardianLabel,
      ...(correction
        ? {
            correctedOutput: {
              status: correction.corrected_status,
              reason: correction.correction_reason,
              ...(correction.corrected_target_file ? { targetFile: correction.corrected_target_file } : {}),
              ...(correction.corrected_candidate_fact ? { candidateFact: correction.corrected_candidate_fact } : {}),
            },
          }
        : {}),
    },
  };
}
