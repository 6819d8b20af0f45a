// The conversation rows the recorder writes (sessions, turns, their context windows, gate decisions and
// write_guardian audits), and the reads it answers the plugin with. Importers write the same rows through
// the same statements (repositories/imports.ts adds their idempotent variants), so one upsert loop
// serves both. The hot inserts bind by position: better-sqlite3 looks each named parameter up on the
// object per call, which made a 13-column insert about 1.6 times slower in a tight loop.
import type { GateDecision } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';
import { listContextItems, type ContextItemRow } from './contexts';

export interface RecorderSessionParams {
  id: string;
  channelId: string;
  conversationTarget: string | null;
  accountId: string | null;
  createdAt: number;
  lastActivityAt: number;
  metadata: string | null;
}

export interface TurnParams {
  id: string;
  sessionId: string;
  turnNumber: number;
  userMessageId: string | null;
  userContent: string;
  userFrom: string | null;
  userMetadata: string | null;
  agentMessageId: string | null;
  agentContent: string;
  agentMetadata: string | null;
  createdAt: number;
}

export interface DecisionParams {
  id: string;
  turnId: string;
  sessionId: string;
  decision: string;
  reason: string;
  candidateFact: string | null;
  model: string;
  latencyMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  rawResponse: string | null;
  source: string;
  createdAt: number;
}

export interface AuditParams {
  id: string;
  decisionId: string | null;
  turnId: string | null;
  sessionId: string | null;
  targetFile: string;
  candidateFact: string | null;
  beforeSnapshotId: string | null;
  afterSnapshotId: string | null;
  diff: string | null;
  added: number | null;
  removed: number | null;
  modified: number | null;
  status: string;
  reason: string | null;
  model: string | null;
  latencyMs: number | null;
  agentSteps: number | null;
  source: string;
  relatedAuditId: string | null;
  metadata: string | null;
  createdAt: number;
}

/** A conversation_turns row as stored. */
export interface StoredTurnRow {
  id: string;
  session_id: string;
  turn_number: number;
  user_message_id: string | null;
  user_message_content: string;
  user_from: string | null;
  user_metadata: string | null;
  agent_message_id: string | null;
  agent_message_content: string;
  agent_metadata: string | null;
  created_at: number;
}

export type { ContextItemRow };

/** The plugin's view of a session wins: its channel, and any target, account or metadata it sends. */
export function upsertRecordedSession(db: DB, p: RecorderSessionParams): void {
  stmt(
    db,
    `
    INSERT INTO sessions (id, channel_id, conversation_target, account_id, created_at, last_activity_at, metadata)
    VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT(id) DO UPDATE SET
      channel_id = excluded.channel_id,
      conversation_target = coalesce(excluded.conversation_target, conversation_target),
      account_id = coalesce(excluded.account_id, account_id),
      created_at = min(created_at, excluded.created_at),
      last_activity_at = max(last_activity_at, excluded.last_activity_at),
      metadata = coalesce(excluded.metadata, metadata)`,
  ).run(p.id, p.channelId, p.conversationTarget, p.accountId, p.createdAt, p.lastActivityAt, p.metadata);
}

export function touchSessionActivity(db: DB, sessionId: string, at: number): void {
  stmt(db, 'UPDATE sessions SET last_activity_at = max(last_activity_at, ?) WHERE id = ?').run(at, sessionId);
}

export function sessionExists(db: DB, id: string): boolean {
  return stmt(db, 'SELECT 1 FROM sessions WHERE id = ?').pluck().get(id) !== undefined;
}

export function turnExists(db: DB, id: string): boolean {
  return stmt(db, 'SELECT 1 FROM conversation_turns WHERE id = ?').pluck().get(id) !== undefined;
}

export function decisionExists(db: DB, id: string): boolean {
  return stmt(db, 'SELECT 1 FROM memory_gate_decisions WHERE id = ?').pluck().get(id) !== undefined;
}

export function auditExists(db: DB, id: string): boolean {
  return stmt(db, 'SELECT 1 FROM write_guardian_audit WHERE id = ?').pluck().get(id) !== undefined;
}

export function nextTurnNumber(db: DB, sessionId: string): number {
  return stmt(db, 'SELECT coalesce(max(turn_number) + 1, 0) FROM conversation_turns WHERE session_id = ?').pluck().get(sessionId) as number;
}

export function insertTurnRow(db: DB, p: TurnParams): void {
  stmt(
    db,
    `
    INSERT INTO conversation_turns (id, session_id, turn_number, user_message_id, user_message_content, user_from,
      user_metadata, agent_message_id, agent_message_content, agent_metadata, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    p.id,
    p.sessionId,
    p.turnNumber,
    p.userMessageId,
    p.userContent,
    p.userFrom,
    p.userMetadata,
    p.agentMessageId,
    p.agentContent,
    p.agentMetadata,
    p.createdAt,
  );
}

export function insertContextItem(db: DB, turnId: string, role: string, message: string, timestamp: number, sequence: number): void {
  stmt(db, 'INSERT INTO conversation_contexts (turn_id, role, message, timestamp, sequence_number) VALUES (?, ?, ?, ?, ?)').run(
    turnId,
    role,
    message,
    timestamp,
    sequence,
  );
}

export function insertDecisionRow(db: DB, p: DecisionParams): void {
  stmt(
    db,
    `
    INSERT INTO memory_gate_decisions (id, turn_id, session_id, decision, reason, candidate_fact, llm_model,
      llm_latency_ms, prompt_tokens, completion_tokens, raw_response, source, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    p.id,
    p.turnId,
    p.sessionId,
    p.decision,
    p.reason,
    p.candidateFact,
    p.model,
    p.latencyMs,
    p.promptTokens,
    p.completionTokens,
    p.rawResponse,
    p.source,
    p.createdAt,
  );
}

/** Returns the new row's rowid, which the health area's version chain orders by. */
export function insertAuditRow(db: DB, p: AuditParams): number {
  const { lastInsertRowid } = stmt(
    db,
    `
    INSERT INTO write_guardian_audit (id, decision_id, turn_id, session_id, target_file, candidate_fact,
      before_snapshot_id, after_snapshot_id, diff, lines_added, lines_removed, lines_modified, status, reason,
      llm_model, llm_latency_ms, agent_steps, source, related_audit_id, metadata, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    p.id,
    p.decisionId,
    p.turnId,
    p.sessionId,
    p.targetFile,
    p.candidateFact,
    p.beforeSnapshotId,
    p.afterSnapshotId,
    p.diff,
    p.added,
    p.removed,
    p.modified,
    p.status,
    p.reason,
    p.model,
    p.latencyMs,
    p.agentSteps,
    p.source,
    p.relatedAuditId,
    p.metadata,
    p.createdAt,
  );
  return Number(lastInsertRowid);
}

/** The decision a write belongs to, as the recorder's event replay needs it. */
export function findDecisionForWrite(db: DB, id: string): { decision: GateDecision; turnId: string; sessionId: string } | undefined {
  return stmt<{ decision: GateDecision; turnId: string; sessionId: string }>(
    db,
    'SELECT decision, turn_id AS turnId, session_id AS sessionId FROM memory_gate_decisions WHERE id = ?',
  ).get(id);
}

/** What became of a decision that wrote nothing (skipped, failed): the decision's outcome. */
export function setDecisionOutcome(db: DB, decisionId: string, outcome: string): void {
  stmt(db, 'UPDATE memory_gate_decisions SET outcome = ? WHERE id = ?').run(outcome, decisionId);
}

export function listTurnsBeforeInSession(db: DB, sessionId: string, before: number, limit: number): StoredTurnRow[] {
  return stmt<StoredTurnRow>(
    db,
    'SELECT * FROM conversation_turns WHERE session_id = ? AND created_at < ? ORDER BY created_at DESC, turn_number DESC LIMIT ?',
  ).all(sessionId, before, limit);
}

/** Rows the recorder wrote or a window an importer wrote (contexts.ts). */
export function listContextOfTurn(db: DB, turnId: string): ContextItemRow[] {
  return listContextItems(db, turnId);
}
