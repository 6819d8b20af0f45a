import type { DB } from '../db/connection';
import { INSERT_TURN_SQL, NEXT_TURN_NUMBER_SQL } from '../recorder/recorder';
import type { ReportBuilder } from './report';

export interface SessionRow {
  id: string;
  channelId: string;
  conversationTarget?: string | null;
  accountId?: string | null;
  createdAt: number;
  lastActivityAt: number;
  metadata?: Record<string, unknown>;
}

export interface TurnRow {
  id: string;
  sessionId: string;
  userMessageId?: string | null;
  userContent: string;
  userFrom?: string | null;
  userMetadata?: Record<string, unknown>;
  agentMessageId?: string | null;
  agentContent: string;
  agentMetadata?: Record<string, unknown>;
  createdAt: number;
  context: Array<{ role: 'user' | 'agent'; message: string; timestamp: number }>;
}

export interface DecisionRow {
  id: string;
  turnId: string;
  sessionId: string;
  decision: string;
  reason: string;
  candidateFact?: string | null;
  model: string;
  source: string;
  createdAt: number;
}

export interface AuditRow {
  id: string;
  decisionId: string;
  turnId: string | null;
  sessionId: string | null;
  targetFile: string;
  candidateFact: string | null;
  status: string;
  reason: string | null;
  model: string | null;
  metadata: Record<string, unknown>;
  createdAt: number;
}

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/**
 * The rows importers write, with INSERT OR IGNORE on ids derived from the source so a re-import
 * adds nothing. Turns are checked by id before a turn number is taken, because the
 * (session_id, turn_number) constraint would otherwise make OR IGNORE drop a new turn silently.
 */
export class ImportStore {
  private readonly s;

  constructor(readonly db: DB, private readonly report: ReportBuilder) {
    this.s = {
      sessionExists: db.prepare('SELECT 1 FROM sessions WHERE id = ?').pluck(),
      insertSession: db.prepare(`
        INSERT INTO sessions (id, channel_id, conversation_target, account_id, created_at, last_activity_at, metadata)
        VALUES (@id, @channelId, @conversationTarget, @accountId, @createdAt, @lastActivityAt, @metadata)
        ON CONFLICT(id) DO UPDATE SET
          conversation_target = coalesce(conversation_target, excluded.conversation_target),
          account_id = coalesce(account_id, excluded.account_id),
          created_at = min(created_at, excluded.created_at),
          last_activity_at = max(last_activity_at, excluded.last_activity_at, min(created_at, excluded.created_at)),
          metadata = CASE WHEN excluded.metadata IS NULL THEN metadata
                          WHEN metadata IS NULL THEN excluded.metadata
                          ELSE json_patch(metadata, excluded.metadata) END`),
      turnExists: db.prepare('SELECT 1 FROM conversation_turns WHERE id = ?').pluck(),
      sameExchange: db
        .prepare(
          `SELECT id FROM conversation_turns WHERE session_id = ? AND created_at BETWEEN ? AND ? AND id <> ?
             AND user_message_content = ? AND instr(agent_message_content, ?) > 0 LIMIT 1`,
        )
        .pluck(),
      nextTurnNumber: db.prepare(NEXT_TURN_NUMBER_SQL).pluck(),
      insertTurn: db.prepare(INSERT_TURN_SQL),
      insertContext: db.prepare(
        'INSERT OR IGNORE INTO conversation_contexts (turn_id, role, message, timestamp, sequence_number) VALUES (?, ?, ?, ?, ?)',
      ),
      touchSession: db.prepare(
        'UPDATE sessions SET last_activity_at = max(last_activity_at, ?), created_at = min(created_at, ?) WHERE id = ?',
      ),
      insertDecision: db.prepare(`
        INSERT OR IGNORE INTO memory_gate_decisions (id, turn_id, session_id, decision, reason, candidate_fact, llm_model,
          llm_latency_ms, prompt_tokens, completion_tokens, raw_response, source, created_at)
        VALUES (@id, @turnId, @sessionId, @decision, @reason, @candidateFact, @model, NULL, NULL, NULL, NULL, @source, @createdAt)`),
      insertAudit: db.prepare(`
        INSERT OR IGNORE INTO write_guardian_audit (id, decision_id, turn_id, session_id, target_file, candidate_fact,
          before_snapshot_id, after_snapshot_id, diff, lines_added, lines_removed, lines_modified, status, reason,
          llm_model, llm_latency_ms, agent_steps, source, related_audit_id, metadata, created_at)
        VALUES (@id, @decisionId, @turnId, @sessionId, @targetFile, @candidateFact, NULL, NULL, NULL, NULL, NULL, NULL,
          @status, @reason, @model, NULL, NULL, 'plugin', NULL, @metadata, @createdAt)`),
      fillDecisionFact: db.prepare(
        'UPDATE memory_gate_decisions SET candidate_fact = ? WHERE id = ? AND candidate_fact IS NULL',
      ),
    };
  }

  upsertSession(s: SessionRow): void {
    const isNew = !this.s.sessionExists.get(s.id);
    this.s.insertSession.run({
      id: s.id,
      channelId: s.channelId,
      conversationTarget: s.conversationTarget ?? null,
      accountId: s.accountId ?? null,
      createdAt: s.createdAt,
      lastActivityAt: Math.max(s.lastActivityAt, s.createdAt),
      metadata: json(s.metadata),
    });
    if (isNew) this.report.count('sessions');
  }

  /**
   * A turn another importer already made of the same exchange (the plugin's logs and OpenClaw's
   * transcript both hold it): same session, same user text, the reply contained in its reply, close in time.
   */
  sameExchange(sessionId: string, from: number, to: number, notId: string, userContent: string, agentContent: string): string | undefined {
    return this.s.sameExchange.get(sessionId, from, to, notId, userContent, agentContent) as string | undefined;
  }

  turnExists(id: string): boolean {
    return Boolean(this.s.turnExists.get(id));
  }

  /** Inserts a turn with its context window; returns false when it was already imported. */
  insertTurn(t: TurnRow): boolean {
    if (this.turnExists(t.id)) {
      this.report.inserted('conversation_turns', 0);
      return false;
    }
    const turnNumber = this.s.nextTurnNumber.get(t.sessionId) as number;
    this.s.insertTurn.run({
      id: t.id,
      sessionId: t.sessionId,
      turnNumber,
      userMessageId: t.userMessageId ?? null,
      userContent: t.userContent,
      userFrom: t.userFrom ?? null,
      userMetadata: json(t.userMetadata),
      agentMessageId: t.agentMessageId ?? null,
      agentContent: t.agentContent,
      agentMetadata: json(t.agentMetadata),
      createdAt: t.createdAt,
    });
    this.report.count('conversation_turns');
    let contexts = 0;
    t.context.forEach((c, i) => {
      contexts += this.s.insertContext.run(t.id, c.role, c.message, c.timestamp, i).changes;
    });
    this.report.count('conversation_contexts', contexts);
    this.s.touchSession.run(t.createdAt, t.createdAt, t.sessionId);
    return true;
  }

  insertDecision(d: DecisionRow): boolean {
    const changes = this.s.insertDecision.run({ ...d, candidateFact: d.candidateFact ?? null }).changes;
    return this.report.inserted('memory_gate_decisions', changes);
  }

  insertAudit(a: AuditRow): boolean {
    const changes = this.s.insertAudit.run({ ...a, metadata: json(a.metadata) }).changes;
    if (changes && a.candidateFact) this.s.fillDecisionFact.run(a.candidateFact, a.decisionId);
    return this.report.inserted('write_guardian_audit', changes);
  }
}
