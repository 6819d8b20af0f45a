// One decision through collection: read its facts, store the feedback signals of the turns after it,
// apply the rules, then assess, cluster and store each new draft.
import type { SampleType } from '../../../shared/domain';
import type { DB } from '../../db/connection';
import {
  findLatestBehaviorCorrection,
  findLatestGateCorrection,
  findWriteDecisionOfTurn,
  insertFeedbackSignal,
  listContextNewestFirst,
  listFollowingTurns,
  listPluginAudits,
  snapshotPrefix,
  snapshotPrefixAt,
  type CollectAuditRow,
  type CollectDecisionRow,
} from '../../db/repositories/collect';
import type { Deduper } from '../dedupe';
import { detectFeedbackSignals, isObjection } from '../feedback';
import type { Message, SampleFeedback } from '../types';
import { assessDraft, type AssessContext, type DecisionSignals } from './assess';
import { draftsFor, type FactLookups, type LaterTurn } from './rules';
import { clusterDraft, sampleId, storeSample } from './store';
import type { CollectRunSummary } from '../collect';

const CONTEXT_LIMIT = 10;
const SNAPSHOT_LIMIT = 20_000;

/** What one run shares across its decisions. */
export interface CollectRun extends AssessContext {
  db: DB;
  now: number;
  dryRun: boolean;
  wants: (t: SampleType) => boolean;
  dedupe: Deduper;
  lookups: FactLookups;
  result: CollectRunSummary;
  /** Source keys of the current page already collected (one query per page). */
  collected: Set<string>;
}

/** The lookups the rules need, answered by the repository. */
export function databaseLookups(db: DB): FactLookups {
  return {
    correctionOf: (auditId) => findLatestBehaviorCorrection(db, auditId),
    gateCorrectionOf: (decisionId) => findLatestGateCorrection(db, decisionId),
    laterWriteOf: (turnId) => findWriteDecisionOfTurn(db, turnId),
    fileBefore: (audit: CollectAuditRow) =>
      (audit.before_snapshot_id
        ? snapshotPrefix(db, audit.before_snapshot_id, SNAPSHOT_LIMIT)
        : snapshotPrefixAt(db, audit.target_file, audit.created_at, SNAPSHOT_LIMIT)) ?? '',
    fileAfter: (audit: CollectAuditRow) =>
      audit.after_snapshot_id ? snapshotPrefix(db, audit.after_snapshot_id, SNAPSHOT_LIMIT) : undefined,
  };
}

/** The context window ending with the judged turn (the turn itself added when the context lacks it). */
export function buildConversation(newestFirst: Message[], user: string, agent: string): Message[] {
  const conv = newestFirst.slice().reverse();
  if (!conv.some((m) => m.role === 'user' && m.message === user)) conv.push({ role: 'user', message: user });
  if (agent && !conv.some((m) => m.role === 'agent' && m.message === agent)) conv.push({ role: 'agent', message: agent });
  return conv.slice(-CONTEXT_LIMIT);
}

/** Feedback in the turns after the decision; each signal is stored on its turn (once). */
function followingSignals(run: CollectRun, d: CollectDecisionRow): { signals: SampleFeedback[]; laterTurns: LaterTurn[] } {
  const turns = listFollowingTurns(run.db, d.session_id, d.turn_created_at, d.turn_number, run.cfg.feedbackWindowTurns);
  const signals: SampleFeedback[] = [];
  for (const t of turns) {
    for (const s of detectFeedbackSignals(t.user_message_content)) {
      signals.push({ type: s.type, confidence: s.confidence, evidence: s.evidence, turnId: t.id, rule: s.rule });
      if (!run.dryRun) {
        run.result.signalsStored += insertFeedbackSignal(run.db, {
          id: `${t.id}:${s.rule}`,
          turnId: t.id,
          sessionId: d.session_id,
          createdAt: t.created_at,
          ...s,
        });
      }
    }
  }
  return { signals, laterTurns: turns.map((t) => ({ id: t.id, text: t.user_message_content })) };
}

export function collectDecision(run: CollectRun, d: CollectDecisionRow): void {
  const audits = d.decision === 'NO_WRITE' ? [] : listPluginAudits(run.db, d.id);
  const { signals, laterTurns } = followingSignals(run, d);
  const conversation = buildConversation(
    listContextNewestFirst(run.db, d.turn_id, CONTEXT_LIMIT),
    d.user_message_content,
    d.agent_message_content,
  );
  const shared: DecisionSignals = {
    signals,
    signalTypes: signals.map((s) => s.type),
    objection: signals.some(isObjection),
    conversationText: conversation.map((m) => m.message).join('\n'),
  };
  const facts = { d, conversation, audit: audits[0], signalTypes: shared.signalTypes, objection: shared.objection, laterTurns };
  const drafts = draftsFor(facts, run.lookups, run.cfg, run.now);
  for (const draft of drafts) {
    if (!run.wants(draft.type)) continue;
    if (run.collected.has(draft.sourceKey)) {
      run.result.alreadyCollected++;
      continue;
    }
    const assessed = assessDraft(run, d, draft, shared);
    const id = sampleId(d.created_at, draft.sourceKey);
    const cluster = clusterDraft(run.dedupe, id, draft, assessed);
    const stored =
      run.dryRun || storeSample(run.db, { id, d, draft, assessed, cluster, signals, privacyChecked: Boolean(run.detect), now: run.now });
    if (!stored) {
      run.result.alreadyCollected++;
      continue;
    }
    // a dry run stored nothing, but later samples of this run must still meet this one (the duplicates count)
    run.dedupe.index(id, cluster);
    if (cluster.duplicateOf) run.result.duplicates++;
    run.result.added[draft.type]++;
    run.result.addedTotal++;
    run.result.byStatus[assessed.status] = (run.result.byStatus[assessed.status] ?? 0) + 1;
  }
}
