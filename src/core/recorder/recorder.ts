import { randomFillSync } from 'node:crypto';
import { encodeTime } from 'ulid';
import type {
  ConversationContextItem,
  ConversationTurn,
  LineChanges,
  MemoryFileName,
} from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { openWorkspaceDatabase, writeTx, type DB, type OpenOptions } from '../db/connection';
import { storeSnapshot } from '../db/snapshots';
import { diffFile } from '../text/diff';
import { onWriteRecorded } from '../health/hook';
import {
  contextItemInput,
  decisionInput,
  parseInput,
  sessionInput,
  turnInput,
  writeInput,
  type ContextItemInput,
  type DecisionInput,
  type SessionInput,
  type TurnInput,
  type WriteInput,
} from './schemas';

/** Shared with the importers, which write turns with the same columns. */
export const INSERT_TURN_SQL = `
  INSERT INTO conversation_turns (id, session_id, turn_number, user_message_id, user_message_content, user_from,
    user_metadata, agent_message_id, agent_message_content, agent_metadata, created_at)
  VALUES (@id, @sessionId, @turnNumber, @userMessageId, @userContent, @userFrom, @userMetadata,
    @agentMessageId, @agentContent, @agentMetadata, @createdAt)`;
export const NEXT_TURN_NUMBER_SQL = 'SELECT coalesce(max(turn_number) + 1, 0) FROM conversation_turns WHERE session_id = ?';

export interface RecordedWrite {
  auditId: string;
  beforeSnapshotId: string | null;
  afterSnapshotId: string | null;
  diff: string | null;
  lines: LineChanges | null;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const randomPool = Buffer.alloc(4096);
let poolAt = randomPool.length;

/**
 * A ULID whose random part comes from a pooled crypto buffer: the ulid package asks the OS for one
 * byte per character, which made id generation the recorder's biggest cost. 256 is a multiple of 32,
 * so `byte & 31` stays uniform.
 */
export function fastUlid(time: number): string {
  if (poolAt + 16 > randomPool.length) {
    randomFillSync(randomPool);
    poolAt = 0;
  }
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[randomPool[poolAt++] & 31];
  return encodeTime(time, 10) + random;
}

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));

interface TurnRow {
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

export function turnFromRow(r: TurnRow): ConversationTurn {
  return {
    id: r.id,
    sessionId: r.session_id,
    turnNumber: r.turn_number,
    userMessage: {
      id: r.user_message_id ?? undefined,
      content: r.user_message_content,
      from: r.user_from ?? undefined,
      metadata: r.user_metadata ? JSON.parse(r.user_metadata) : undefined,
    },
    agentReply: {
      id: r.agent_message_id ?? undefined,
      content: r.agent_message_content,
      metadata: r.agent_metadata ? JSON.parse(r.agent_metadata) : undefined,
    },
    createdAt: r.created_at,
  };
}

/**
 * Writes the workspace database: the synchronous core behind the plugin-facing recorder.
 * Every method validates its input first (an Invalid error names the field) and writes in one
 * IMMEDIATE transaction, so a bad call leaves nothing half-written and concurrent writers queue.
 */
export interface RecorderCoreOptions {
  /** Makes the ULID of a row created at `time`; the demo generator passes a seeded factory so runs are reproducible. */
  newId?: (time: number) => string;
}

export class RecorderCore {
  private readonly stmts;
  private readonly newId: (time: number) => string;

  constructor(readonly db: DB, options: RecorderCoreOptions = {}) {
    this.newId = options.newId ?? fastUlid;
    this.stmts = {
      upsertSession: db.prepare(`
        INSERT INTO sessions (id, channel_id, conversation_target, account_id, created_at, last_activity_at, metadata)
        VALUES (@id, @channelId, @conversationTarget, @accountId, @createdAt, @lastActivityAt, @metadata)
        ON CONFLICT(id) DO UPDATE SET
          channel_id = excluded.channel_id,
          conversation_target = coalesce(excluded.conversation_target, conversation_target),
          account_id = coalesce(excluded.account_id, account_id),
          created_at = min(created_at, excluded.created_at),
          last_activity_at = max(last_activity_at, excluded.last_activity_at),
          metadata = coalesce(excluded.metadata, metadata)`),
      touchSession: db.prepare('UPDATE sessions SET last_activity_at = max(last_activity_at, ?) WHERE id = ?'),
      nextTurnNumber: db.prepare(NEXT_TURN_NUMBER_SQL).pluck(),
      insertTurn: db.prepare(INSERT_TURN_SQL),
      insertContext: db.prepare(
        'INSERT INTO conversation_contexts (turn_id, role, message, timestamp, sequence_number) VALUES (?, ?, ?, ?, ?)',
      ),
      turnExists: db.prepare('SELECT 1 FROM conversation_turns WHERE id = ?').pluck(),
      sessionExists: db.prepare('SELECT 1 FROM sessions WHERE id = ?').pluck(),
      insertDecision: db.prepare(`
        INSERT INTO memory_gate_decisions (id, turn_id, session_id, decision, reason, candidate_fact, llm_model,
          llm_latency_ms, prompt_tokens, completion_tokens, raw_response, source, created_at)
        VALUES (@id, @turnId, @sessionId, @decision, @reason, @candidateFact, @model, @latencyMs, @promptTokens,
          @completionTokens, @rawResponse, @source, @createdAt)`),
      insertAudit: db.prepare(`
        INSERT INTO write_guardian_audit (id, decision_id, turn_id, session_id, target_file, candidate_fact,
          before_snapshot_id, after_snapshot_id, diff, lines_added, lines_removed, lines_modified, status, reason,
          llm_model, llm_latency_ms, agent_steps, source, related_audit_id, metadata, created_at)
        VALUES (@id, @decisionId, @turnId, @sessionId, @targetFile, @candidateFact, @beforeSnapshotId, @afterSnapshotId,
          @diff, @added, @removed, @modified, @status, @reason, @model, @latencyMs, @agentSteps, @source,
          @relatedAuditId, @metadata, @createdAt)`),
      turnsBySession: db.prepare(
        'SELECT * FROM conversation_turns WHERE session_id = ? AND created_at < ? ORDER BY created_at DESC, turn_number DESC LIMIT ?',
      ),
      contextByTurn: db.prepare(
        `SELECT id, turn_id AS turnId, role, message, timestamp, sequence_number AS sequenceNumber
         FROM conversation_contexts WHERE turn_id = ? ORDER BY sequence_number`,
      ),
    };
  }

  /**
   * Each call is its own IMMEDIATE transaction; inside batch() (or a caller's transaction) calls join
   * it instead of opening a savepoint each, which costs a fifth of bulk ingest. Every call validates
   * its whole input before its first write, and a failure inside a batch rolls the batch back.
   */
  private tx<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : writeTx(this.db, fn);
  }

  /** Runs several recorder calls in one transaction (bulk ingest): all of them are kept, or none. */
  batch<T>(fn: () => T): T {
    return writeTx(this.db, fn);
  }

  upsertSession(input: SessionInput): void {
    const s = parseInput(sessionInput, input, 'upsertSession');
    this.tx(() =>
      this.stmts.upsertSession.run({
        id: s.id,
        channelId: s.channelId,
        conversationTarget: s.conversationTarget ?? null,
        accountId: s.accountId ?? null,
        createdAt: s.createdAt,
        lastActivityAt: Math.max(s.lastActivityAt, s.createdAt),
        metadata: json(s.metadata),
      }),
    );
  }

  /** Inserts a turn; the turn number defaults to the next in its session. Returns the turn id. */
  insertTurn(input: TurnInput): { id: string; turnNumber: number } {
    const t = parseInput(turnInput, input, 'insertTurn');
    return this.tx(() => {
      if (!this.stmts.sessionExists.get(t.sessionId)) {
        throw new AppError('Invalid', `insertTurn: sessionId: session ${t.sessionId} does not exist (call upsertSession first)`);
      }
      const id = t.id ?? this.newId(t.createdAt);
      const turnNumber = t.turnNumber ?? (this.stmts.nextTurnNumber.get(t.sessionId) as number);
      try {
        this.stmts.insertTurn.run({
          id,
          sessionId: t.sessionId,
          turnNumber,
          userMessageId: t.userMessage.id ?? null,
          userContent: t.userMessage.content,
          userFrom: t.userMessage.from ?? null,
          userMetadata: json(t.userMessage.metadata),
          agentMessageId: t.agentReply.id ?? null,
          agentContent: t.agentReply.content,
          agentMetadata: json(t.agentReply.metadata),
          createdAt: t.createdAt,
        });
      } catch (e) {
        if (String((e as Error).message).includes('UNIQUE')) {
          throw new AppError('Conflict', `insertTurn: turn ${id} or turn number ${turnNumber} of ${t.sessionId} already exists`);
        }
        throw e;
      }
      this.stmts.touchSession.run(t.createdAt, t.sessionId);
      return { id, turnNumber };
    });
  }

  insertContextBatch(turnId: string, context: ContextItemInput[]): void {
    if (typeof turnId !== 'string' || !turnId) throw new AppError('Invalid', 'insertContextBatch: turnId: expected a turn id');
    if (!Array.isArray(context)) throw new AppError('Invalid', 'insertContextBatch: context: expected an array');
    const items = context.map((c, i) => parseInput(contextItemInput, c, `insertContextBatch: context.${i}`));
    this.tx(() => {
      if (!this.stmts.turnExists.get(turnId)) throw new AppError('Invalid', `insertContextBatch: turnId: turn ${turnId} does not exist`);
      items.forEach((c, i) => this.stmts.insertContext.run(turnId, c.role, c.message, c.timestamp, i));
    });
  }

  getTurnsBySession(sessionId: string, options: { limit?: number; before?: number } = {}): ConversationTurn[] {
    const rows = this.stmts.turnsBySession.all(sessionId, options.before ?? Number.MAX_SAFE_INTEGER, options.limit ?? 100) as TurnRow[];
    return rows.reverse().map(turnFromRow);
  }

  getContextByTurn(turnId: string): ConversationContextItem[] {
    return this.stmts.contextByTurn.all(turnId) as ConversationContextItem[];
  }

  /** Records one memory_gate decision. Returns its id. */
  insertDecision(input: DecisionInput): string {
    const d = parseInput(decisionInput, input, 'insertDecision');
    if (d.decision !== 'NO_WRITE' && !d.candidateFact) {
      throw new AppError('Invalid', `insertDecision: candidateFact: required when the decision is ${d.decision}`);
    }
    const id = d.id ?? this.newId(d.createdAt);
    this.tx(() => {
      if (!this.stmts.turnExists.get(d.turnId)) throw new AppError('Invalid', `insertDecision: turnId: turn ${d.turnId} does not exist`);
      this.stmts.insertDecision.run({
        id,
        turnId: d.turnId,
        sessionId: d.sessionId,
        decision: d.decision,
        reason: d.reason,
        candidateFact: d.candidateFact ?? null,
        model: d.llmCall.model,
        latencyMs: d.llmCall.latencyMs ?? null,
        promptTokens: d.llmCall.promptTokens ?? null,
        completionTokens: d.llmCall.completionTokens ?? null,
        rawResponse: d.llmCall.rawResponse ?? null,
        source: d.source ?? 'recorder',
        createdAt: d.createdAt,
      });
    });
    return id;
  }

  /**
   * Records one write_guardian outcome. When before/after content is given, both are stored as
   * snapshots (deduplicated by SHA-256) and the unified diff and line counts are computed.
   * Must be called inside a transaction by callers that also touch files (see services/guardian).
   */
  recordWrite(input: WriteInput): RecordedWrite {
    const w = parseInput(writeInput, input, 'recordWrite');
    return this.tx(() => this.recordWriteInTx(w));
  }

  /** recordWrite without its own transaction, for services that compose it with other statements. */
  recordWriteInTx(w: ReturnType<typeof writeInput.parse>): RecordedWrite {
    const id = w.id ?? this.newId(w.createdAt);
    const file = w.targetFile as MemoryFileName;
    const beforeKnown = w.before !== undefined;
    const afterKnown = w.after !== undefined;
    const beforeSnapshotId = beforeKnown && w.before !== null ? storeSnapshot(this.db, file, w.before as string, w.createdAt, this.newId(w.createdAt)) : null;
    const afterSnapshotId = afterKnown && w.after !== null ? storeSnapshot(this.db, file, w.after as string, w.createdAt, this.newId(w.createdAt)) : null;
    const changed = beforeKnown && afterKnown ? diffFile(file, w.before ?? null, w.after ?? null) : null;
    this.stmts.insertAudit.run({
      id,
      decisionId: w.decisionId ?? null,
      turnId: w.turnId ?? null,
      sessionId: w.sessionId ?? null,
      targetFile: file,
      candidateFact: w.candidateFact ?? null,
      beforeSnapshotId,
      afterSnapshotId,
      diff: changed?.diff ?? null,
      added: changed?.lines.added ?? null,
      removed: changed?.lines.removed ?? null,
      modified: changed?.lines.modified ?? null,
      status: w.status,
      reason: w.reason ?? null,
      model: w.llmCall?.model ?? null,
      latencyMs: w.llmCall?.latencyMs ?? null,
      agentSteps: w.llmCall?.agentSteps ?? null,
      source: w.source,
      relatedAuditId: w.relatedAuditId ?? null,
      metadata: json(w.metadata),
      createdAt: w.createdAt,
    });
    onWriteRecorded(this.db, id);
    return { auditId: id, beforeSnapshotId, afterSnapshotId, diff: changed?.diff ?? null, lines: changed?.lines ?? null };
  }
}

/**
 * The library the plugin calls. Seed 000's ConversationStorage is asynchronous, so these methods
 * return promises; better-sqlite3 underneath is synchronous, and `recorder.core` exposes that directly.
 */
export class Recorder {
  constructor(readonly core: RecorderCore, private readonly onClose: () => void) {}

  async upsertSession(session: SessionInput): Promise<void> {
    this.core.upsertSession(session);
  }
  async insertTurn(turn: TurnInput): Promise<{ id: string; turnNumber: number }> {
    return this.core.insertTurn(turn);
  }
  async insertContextBatch(turnId: string, context: ContextItemInput[]): Promise<void> {
    this.core.insertContextBatch(turnId, context);
  }
  async getTurnsBySession(sessionId: string, options?: { limit?: number; before?: number }): Promise<ConversationTurn[]> {
    return this.core.getTurnsBySession(sessionId, options);
  }
  async getContextByTurn(turnId: string): Promise<ConversationContextItem[]> {
    return this.core.getContextByTurn(turnId);
  }
  async insertDecision(decision: DecisionInput): Promise<string> {
    return this.core.insertDecision(decision);
  }
  async recordWrite(write: WriteInput): Promise<RecordedWrite> {
    return this.core.recordWrite(write);
  }
  close(): void {
    this.onClose();
  }
}

export interface RecorderOptions extends OpenOptions {
  workspaceDir: string;
}

export function openRecorder(options: RecorderOptions): Recorder {
  const { db } = openWorkspaceDatabase(options.workspaceDir, options);
  return new Recorder(new RecorderCore(db), () => db.close());
}
