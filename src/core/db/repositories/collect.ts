// Collection's reads and writes (issue 16): the decisions of a window in keyset pages, what each decision
// needs to become samples (context, plugin audit, corrections, snapshots, following turns), and the
// sample and feedback-signal inserts. Dedupe's statements live in collectDedupe.ts.
import type { GateDecision, MemoryFileName } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';
import { NEXT_FINGERPRINT_GEN } from './collectDedupe';
import { listContextMessagesNewestFirst } from './contexts';

export interface CollectWindow {
  since: number;
  until: number;
  session: string | null;
  /** The last decision a run reads (seq): decisions recorded while it runs are the next run's. */
  lastSeq: number;
}

export interface CollectDecisionRow {
  seq: number;
  id: string;
  turn_id: string;
  session_id: string;
  decision: GateDecision;
  reason: string;
  candidate_fact: string | null;
  raw_response: string | null;
  created_at: number;
  turn_number: number;
  user_message_content: string;
  agent_message_content: string;
  turn_created_at: number;
}

export interface CollectAuditRow {
  id: string;
  target_file: MemoryFileName;
  candidate_fact: string | null;
  before_snapshot_id: string | null;
  after_snapshot_id: string | null;
  status: string;
  reason: string | null;
  created_at: number;
  rolled_back_at: number | null;
  rollback_reason: string | null;
}

export interface CollectCorrectionRow {
  id: string;
  original_status: string;
  original_candidate_fact: string | null;
  original_target_file: string | null;
  corrected_status: 'written' | 'refused';
  corrected_candidate_fact: string | null;
  corrected_target_file: MemoryFileName | null;
  correction_reason: string;
  corrected_at: number;
}

export interface CollectGateCorrectionRow {
  id: string;
  corrected_decision: GateDecision;
  corrected_fact: string;
  corrected_target_file: MemoryFileName;
  reason: string;
  corrected_at: number;
}

export interface FollowingTurnRow {
  id: string;
  user_message_content: string;
  created_at: number;
}

export interface ContextMessageRow {
  role: 'user' | 'agent';
  message: string;
}

const WINDOW = `d.seq <= @lastSeq AND d.created_at >= @since AND d.created_at < @until AND (@session IS NULL OR d.session_id = @session)
  AND d.session_id NOT IN (SELECT session_id FROM excluded_sessions)`;

export function lastDecisionSeq(db: DB): number {
  return stmt(db, 'SELECT coalesce(max(seq), 0) FROM memory_gate_decisions').pluck().get() as number;
}

export function countDecisionsInWindow(db: DB, w: CollectWindow): number {
  return stmt(db, `SELECT count(*) FROM memory_gate_decisions d WHERE ${WINDOW}`).pluck().get(w) as number;
}

/**
 * One keyset page of decisions with their turns. NOT INDEXED: walk decisions in seq order; with the
 * created_at index SQLite would re-sort the whole window for every page (quadratic over 100,000).
 */
export function listDecisionPage(db: DB, w: CollectWindow, after: number, limit: number): CollectDecisionRow[] {
  return stmt<CollectDecisionRow>(
    db,
    `SELECT d.seq, d.id, d.turn_id, d.session_id, d.decision, d.reason, d.candidate_fact, d.raw_response,
        d.created_at, t.turn_number, t.user_message_content, t.agent_message_content, t.created_at AS turn_created_at
      FROM memory_gate_decisions d NOT INDEXED JOIN conversation_turns t ON t.id = d.turn_id
      WHERE d.seq > @after AND ${WINDOW}
        AND NOT (d.decision = 'NO_WRITE' AND d.reason LIKE 'LLM request failed:%') -- a failed gate run (plugin-logs), never a sample
      ORDER BY d.seq LIMIT @limit`,
  ).all({ ...w, after, limit });
}

/** The newest `limit` context messages of a turn, newest first (rows or a window: contexts.ts). */
export function listContextNewestFirst(db: DB, turnId: string, limit: number): ContextMessageRow[] {
  return listContextMessagesNewestFirst(db, turnId, limit) as ContextMessageRow[];
}

/** One decision's plugin audits; collection reads a page's at once (listPluginAuditsOfDecisions). */
export function listPluginAudits(db: DB, decisionId: string): CollectAuditRow[] {
  return stmt<CollectAuditRow>(
    db,
    `SELECT a.id, a.target_file, a.candidate_fact, a.before_snapshot_id, a.after_snapshot_id, a.status, a.reason, a.created_at,
        r.rolled_back_at, r.reason AS rollback_reason
      FROM write_guardian_audit a LEFT JOIN rollbacks r ON r.audit_id = a.id
      WHERE a.decision_id = ? AND a.source = 'plugin' ORDER BY a.created_at, a.id`,
  ).all(decisionId);
}

export interface PageAuditRow extends CollectAuditRow {
  decision_id: string;
}

/** The plugin audits of some decisions (listPluginAudits of each, in one statement), in no set order. */
export function listPluginAuditsOfDecisions(db: DB, decisionIds: readonly string[]): PageAuditRow[] {
  return stmt<PageAuditRow>(
    db,
    `SELECT a.decision_id, a.id, a.target_file, a.candidate_fact, a.before_snapshot_id, a.after_snapshot_id, a.status, a.reason,
        a.created_at, r.rolled_back_at, r.reason AS rollback_reason
      FROM write_guardian_audit a LEFT JOIN rollbacks r ON r.audit_id = a.id
      WHERE a.decision_id IN (SELECT value FROM json_each(?)) AND a.source = 'plugin'`,
  ).all(JSON.stringify(decisionIds));
}

export function findLatestBehaviorCorrection(db: DB, auditId: string): CollectCorrectionRow | undefined {
  return stmt<CollectCorrectionRow>(
    db,
    `SELECT id, original_status, original_candidate_fact, original_target_file, corrected_status,
        corrected_candidate_fact, corrected_target_file, correction_reason, corrected_at
      FROM behavior_corrections WHERE audit_id = ? ORDER BY corrected_at DESC, id DESC LIMIT 1`,
  ).get(auditId);
}

/** Every correction of some audits, in no set order: the latest of each is findLatestBehaviorCorrection's. */
export function listCorrectionsOfAudits(db: DB, auditIds: readonly string[]): (CollectCorrectionRow & { audit_id: string })[] {
  return stmt<CollectCorrectionRow & { audit_id: string }>(
    db,
    `SELECT audit_id, id, original_status, original_candidate_fact, original_target_file, corrected_status,
        corrected_candidate_fact, corrected_target_file, correction_reason, corrected_at
      FROM behavior_corrections WHERE audit_id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(auditIds));
}

export function findLatestGateCorrection(db: DB, decisionId: string): CollectGateCorrectionRow | undefined {
  return stmt<CollectGateCorrectionRow>(
    db,
    `SELECT id, corrected_decision, corrected_fact, corrected_target_file, reason, corrected_at
      FROM dataset_gate_corrections WHERE decision_id = ? ORDER BY corrected_at DESC, id DESC LIMIT 1`,
  ).get(decisionId);
}

/** Every gate correction of some decisions, in no set order: the latest of each is findLatestGateCorrection's. */
export function listGateCorrectionsOfDecisions(
  db: DB,
  decisionIds: readonly string[],
): (CollectGateCorrectionRow & { decision_id: string })[] {
  return stmt<CollectGateCorrectionRow & { decision_id: string }>(
    db,
    `SELECT decision_id, id, corrected_decision, corrected_fact, corrected_target_file, reason, corrected_at
      FROM dataset_gate_corrections WHERE decision_id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(decisionIds));
}

/** The first `limit` characters of a snapshot. */
export function snapshotPrefix(db: DB, snapshotId: string, limit: number): string | undefined {
  return stmt(db, 'SELECT substr(content, 1, ?) FROM file_snapshots WHERE id = ?').pluck().get(limit, snapshotId) as string | undefined;
}

/** The first `limit` characters of the newest snapshot of a file at a time. */
export function snapshotPrefixAt(db: DB, fileName: string, at: number, limit: number): string | undefined {
  return stmt(
    db,
    `SELECT substr(content, 1, ?) FROM file_snapshots WHERE file_name = ? AND created_at <= ? ORDER BY created_at DESC LIMIT 1`,
  )
    .pluck()
    .get(limit, fileName, at) as string | undefined;
}

/**
 * The turns after a turn in its session, in order (collection reads a page's at once:
 * listFollowingTurnsOfDecisions). The row-value range reads only the rows returned from
 * idx_turns_session_created_number; an OR of the two conditions made SQLite sort every later turn.
 */
export function listFollowingTurns(db: DB, sessionId: string, createdAt: number, turnNumber: number, limit: number): FollowingTurnRow[] {
  return stmt<FollowingTurnRow>(
    db,
    `SELECT id, user_message_content, created_at FROM conversation_turns
      WHERE session_id = ? AND (created_at, turn_number) > (?, ?)
      ORDER BY created_at, turn_number LIMIT ?`,
  ).all(sessionId, createdAt, turnNumber, limit);
}

export interface PageFollowingTurnRow extends FollowingTurnRow {
  /** The index of the decision in the list given. */
  i: number;
  turn_number: number;
}

/**
 * The following turns of each of some decisions (listFollowingTurns of each, in one statement), in no set
 * order. Each decision's turns are a correlated list read from idx_turns_session_created_number.
 */
export function listFollowingTurnsOfDecisions(
  db: DB,
  decisions: readonly Pick<CollectDecisionRow, 'session_id' | 'turn_created_at' | 'turn_number'>[],
  limit: number,
): PageFollowingTurnRow[] {
  const keys = JSON.stringify(decisions.map((d) => [d.session_id, d.turn_created_at, d.turn_number]));
  return stmt<PageFollowingTurnRow>(
    db,
    `SELECT p.key AS i, f.id, f.user_message_content, f.created_at, f.turn_number
      FROM json_each(@keys) AS p JOIN conversation_turns AS f ON f.seq IN (
        SELECT seq FROM conversation_turns
        WHERE session_id = p.value ->> 0 AND (created_at, turn_number) > (p.value ->> 1, p.value ->> 2)
        ORDER BY created_at, turn_number LIMIT @limit)`,
  ).all({ keys, limit });
}

export function findWriteDecisionOfTurn(db: DB, turnId: string): { decision: GateDecision; candidate_fact: string | null } | undefined {
  return stmt<{ decision: GateDecision; candidate_fact: string | null }>(
    db,
    "SELECT decision, candidate_fact FROM memory_gate_decisions WHERE turn_id = ? AND decision <> 'NO_WRITE' LIMIT 1",
  ).get(turnId);
}

/** The source keys already collected from some decisions (one query per page instead of one per draft). */
export function listSourceKeysOfDecisions(db: DB, decisionIds: string[]): string[] {
  return stmt(db, 'SELECT source_key FROM dataset_samples WHERE decision_id IN (SELECT value FROM json_each(?)) AND source_key IS NOT NULL')
    .pluck()
    .all(JSON.stringify(decisionIds)) as string[];
}

export interface FeedbackSignalInsert {
  id: string;
  turnId: string;
  sessionId: string;
  type: string;
  source: string;
  language: string;
  rule: string;
  evidence: string;
  confidence: number;
  createdAt: number;
}

/** Returns 1 when stored, 0 when the turn already had it. */
export function insertFeedbackSignal(db: DB, s: FeedbackSignalInsert): number {
  return stmt(
    db,
    `INSERT OR IGNORE INTO dataset_feedback_signals (id, turn_id, session_id, type, source, language, rule, evidence, confidence, created_at)
      VALUES (@id, @turnId, @sessionId, @type, @source, @language, @rule, @evidence, @confidence, @createdAt)`,
  ).run(s).changes;
}

export interface SampleInsert {
  id: string;
  type: string;
  turnId: string;
  decisionId: string;
  auditId: string | null;
  correctionId: string | null;
  sessionId: string;
  content: string;
  score: number | null;
  factors: string | null;
  status: string;
  annotatedBy: string | null;
  annotatedAt: number | null;
  privacyChecked: number;
  containsPii: number;
  redacted: string | null;
  spans: string | null;
  signals: string | null;
  fingerprint: string;
  clusterId: string;
  sourceKey: string;
  strategy: string;
  createdAt: number;
  labels: string;
}

/**
 * Returns 1 when stored, 0 when a sample with that source key exists. Bound by position: better-sqlite3
 * looks each named parameter up on the object, about 2 µs of the row's insert for 24 of them. The
 * fingerprint's generation follows the rowid (migration 0185: why).
 */
export function insertCollectedSample(db: DB, s: SampleInsert): number {
  return stmt(
    db,
    `INSERT INTO dataset_samples (id, sample_type, turn_id, decision_id, audit_id, correction_id,
        session_id, content, quality_score, quality_factors, annotation_status, annotated_by, annotated_at, privacy_checked,
        contains_pii, pii_redacted_content, pii_spans, feedback_signals, fingerprint, cluster_id, source_key,
        collection_strategy, created_at, labels, fingerprint_gen)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${NEXT_FINGERPRINT_GEN})
      ON CONFLICT(source_key) DO NOTHING`,
  ).run(
    s.id,
    s.type,
    s.turnId,
    s.decisionId,
    s.auditId,
    s.correctionId,
    s.sessionId,
    s.content,
    s.score,
    s.factors,
    s.status,
    s.annotatedBy,
    s.annotatedAt,
    s.privacyChecked,
    s.containsPii,
    s.redacted,
    s.spans,
    s.signals,
    s.fingerprint,
    s.clusterId,
    s.sourceKey,
    s.strategy,
    s.createdAt,
    s.labels,
  ).changes;
}
