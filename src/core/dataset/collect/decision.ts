// One decision through collection: read its facts (with its page's, in one statement each), store the
// feedback signals of the turns after it, apply the rules, then assess, cluster and store each new draft.
import type { SampleType } from '../../../shared/domain';
import type { DB } from '../../db/connection';
import {
  findLatestBehaviorCorrection,
  findLatestGateCorrection,
  findWriteDecisionOfTurn,
  insertFeedbackSignal,
  listCorrectionsOfAudits,
  listGateCorrectionsOfDecisions,
  listFollowingTurnsOfDecisions,
  listPluginAuditsOfDecisions,
  snapshotPrefix,
  snapshotPrefixAt,
  type CollectAuditRow,
  type CollectCorrectionRow,
  type CollectDecisionRow,
  type CollectGateCorrectionRow,
  type FollowingTurnRow,
} from '../../db/repositories/collect';
import { listNewestContextOfTurns } from '../../db/repositories/contexts';
import type { Deduper } from '../dedupe';
import { RecentCache } from '../recentCache';
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
  /**
   * Turn id -> the feedback in its user message, for the turns met lately. A turn follows up to
   * feedbackWindowTurns decisions; its signals are found and stored the first time (storing them
   * again changed nothing: INSERT OR IGNORE). Interleaved sessions put those decisions hundreds apart.
   */
  feedback?: RecentCache<string, SampleFeedback[]>;
}

/** Turns a generation of CollectRun.feedback holds: more than the decisions between a turn's first and last use. */
const FEEDBACK_GENERATION = 4096;

/**
 * Decisions whose facts are read together. Not a whole page (3,000): the facts hold context messages,
 * and ten of them for each of 3,000 decisions could be tens of MB of text in a real workspace.
 */
const FACTS_CHUNK = 256;

/**
 * The context windows, following turns, plugin audits and corrections of some decisions of a page (a
 * chunk), each read in one statement: one statement per decision for each cost more than the decision's
 * rules and assessment together (about 70 µs a decision at 10,000; the context read alone 40 µs, for
 * windows that were empty).
 */
export interface PageFacts {
  rows: readonly CollectDecisionRow[];
  /** turn id -> its newest CONTEXT_LIMIT messages, newest first */
  contexts: Map<string, Message[]>;
  /** decision id -> the turns after its turn, in order */
  following: Map<string, FollowingTurnRow[]>;
  /** decision id -> its plugin audits, oldest first */
  audits: Map<string, CollectAuditRow[]>;
  /** audit id -> its latest correction (of the first audit of each decision, the one the rules read) */
  corrections: Map<string, CollectCorrectionRow>;
  /** decision id -> its latest gate correction (NO_WRITE decisions) */
  gateCorrections: Map<string, CollectGateCorrectionRow>;
  lookups?: FactLookups;
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const list = groups.get(key);
    if (list) list.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

export function readPageFacts(db: DB, rows: readonly CollectDecisionRow[], followingLimit: number): PageFacts {
  const turnIds = [...new Set(rows.map((r) => r.turn_id))];
  const contexts = new Map<string, Message[]>();
  for (const [turnId, list] of groupBy(listNewestContextOfTurns(db, turnIds, CONTEXT_LIMIT), (c) => c.turnId)) {
    // a turn with both forms of context: merged as listContextMessagesNewestFirst's ORDER BY merges them
    if (list.length > 1) list.sort((a, b) => b.sequenceNumber - a.sequenceNumber);
    const newest: Message[] = [];
    for (let i = 0; i < list.length && i < CONTEXT_LIMIT; i++)
      newest.push({ role: list[i]!.role as Message['role'], message: list[i]!.message });
    contexts.set(turnId, newest);
  }
  // t.i indexes rows, the list the statement was given
  const following = groupBy(listFollowingTurnsOfDecisions(db, rows, followingLimit), (t) => rows[t.i]!.id);
  for (const list of following.values())
    if (list.length > 1) list.sort((a, b) => a.created_at - b.created_at || a.turn_number - b.turn_number);
  const writes = rows.filter((r) => r.decision !== 'NO_WRITE').map((r) => r.id);
  const audits = groupBy<CollectAuditRow & { decision_id: string }>(listPluginAuditsOfDecisions(db, writes), (a) => a.decision_id);
  for (const list of audits.values()) if (list.length > 1) list.sort((a, b) => a.created_at - b.created_at || compareText(a.id, b.id));
  const firstAudits = [...audits.values()].map((list) => list[0]!.id); // groups are never empty
  const corrections = latestOf(listCorrectionsOfAudits(db, firstAudits), (c) => c.audit_id);
  const noWrites = rows.filter((r) => r.decision === 'NO_WRITE').map((r) => r.id);
  const gateCorrections = latestOf(listGateCorrectionsOfDecisions(db, noWrites), (c) => c.decision_id);
  return { rows, contexts, following, audits, corrections, gateCorrections };
}

/** The latest correction of each key: by corrected_at, then id (the per-decision reads' ORDER BY ... DESC). */
function latestOf<T extends { id: string; corrected_at: number }>(items: readonly T[], keyOf: (item: T) => string): Map<string, T> {
  const latest = new Map<string, T>();
  for (const c of items) {
    const key = keyOf(c);
    const seen = latest.get(key);
    if (!seen || c.corrected_at > seen.corrected_at || (c.corrected_at === seen.corrected_at && c.id > seen.id)) latest.set(key, c);
  }
  return latest;
}

/** SQLite's BINARY order of two ids (the same as UTF-16 order for the ASCII ids compared here). */
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The facts of the decisions rows[from] to rows[to - 1], read when collection reaches rows[from]. */
export interface FactsChunk {
  facts: PageFacts;
  to: number;
}

/** Reads the facts of the FACTS_CHUNK decisions of a page that start at rows[from]. */
export function readFactsChunk(run: CollectRun, rows: readonly CollectDecisionRow[], from: number): FactsChunk {
  const chunk = rows.slice(from, from + FACTS_CHUNK);
  return { facts: readPageFacts(run.db, chunk, run.cfg.feedbackWindowTurns), to: from + chunk.length };
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

/** The feedback in a turn's user message, found and stored on the turn the first time the run meets it. */
function feedbackOfTurn(run: CollectRun, t: FollowingTurnRow, sessionId: string): SampleFeedback[] {
  const cache = (run.feedback ??= new RecentCache(FEEDBACK_GENERATION));
  const known = cache.get(t.id);
  if (known) return known;
  const feedback: SampleFeedback[] = [];
  for (const s of detectFeedbackSignals(t.user_message_content)) {
    feedback.push({ type: s.type, confidence: s.confidence, evidence: s.evidence, turnId: t.id, rule: s.rule });
    if (!run.dryRun) {
      run.result.signalsStored += insertFeedbackSignal(run.db, {
        id: `${t.id}:${s.rule}`,
        turnId: t.id,
        sessionId,
        createdAt: t.created_at,
        ...s,
      });
    }
  }
  cache.set(t.id, feedback);
  return feedback;
}

/** Feedback in the turns after the decision; each signal is stored on its turn (once). */
function followingSignals(run: CollectRun, page: PageFacts, d: CollectDecisionRow): { signals: SampleFeedback[]; laterTurns: LaterTurn[] } {
  const turns = page.following.get(d.id) ?? [];
  const signals: SampleFeedback[] = [];
  for (const t of turns) for (const s of feedbackOfTurn(run, t, d.session_id)) signals.push(s);
  return { signals, laterTurns: turns.map((t) => ({ id: t.id, text: t.user_message_content })) };
}

/** The rules' lookups, the corrections answered from the page. */
function pageLookups(run: CollectRun, page: PageFacts): FactLookups {
  return {
    ...run.lookups,
    correctionOf: (auditId) => page.corrections.get(auditId),
    gateCorrectionOf: (decisionId) => page.gateCorrections.get(decisionId),
  };
}

/** page: the facts read with d's (readFactsChunk). */
export function collectDecision(run: CollectRun, d: CollectDecisionRow, page: PageFacts): void {
  const audits = (d.decision !== 'NO_WRITE' && page.audits.get(d.id)) || [];
  const { signals, laterTurns } = followingSignals(run, page, d);
  const conversation = buildConversation(page.contexts.get(d.turn_id) ?? [], d.user_message_content, d.agent_message_content);
  const shared: DecisionSignals = {
    signals,
    signalTypes: signals.map((s) => s.type),
    objection: signals.some(isObjection),
    conversationText: conversation.map((m) => m.message).join('\n'),
  };
  const facts = { d, conversation, audit: audits[0], signalTypes: shared.signalTypes, objection: shared.objection, laterTurns };
  const drafts = draftsFor(facts, (page.lookups ??= pageLookups(run, page)), run.cfg, run.now);
  const signalsJson = signals.length ? JSON.stringify(signals) : null;
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
      run.dryRun ||
      storeSample(run.db, { id, d, draft, assessed, cluster, signalsJson, privacyChecked: Boolean(run.detect), now: run.now });
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
