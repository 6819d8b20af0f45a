import { randomFillSync } from 'node:crypto';
import { encodeTime } from 'ulid';
import type { ConversationContextItem, ConversationTurn, LineChanges, MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { openWorkspaceDatabase, writeTx, type DB, type OpenOptions } from '../db/connection';
import { storeSnapshot } from '../db/snapshots';
import { diffFile, sha256 } from '../text/diff';
import {
  insertAuditRow,
  insertContextItem,
  insertDecisionRow,
  insertTurnRow,
  listContextOfTurn,
  listTurnsBeforeInSession,
  nextTurnNumber,
  sessionExists,
  touchSessionActivity,
  turnExists,
  upsertRecordedSession,
  type StoredTurnRow,
} from '../db/repositories/recorder';
import { isVersionWrite } from '../db/repositories/memoryVersions';
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
import { wellFormedContextItem, wellFormedDecision, wellFormedSession, wellFormedTurn, wellFormedWrite } from './wellFormed';

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
  for (let i = 0; i < 16; i++) random += CROCKFORD[randomPool[poolAt++]! & 31]; // the pool was refilled when fewer than 16 bytes were left
  return encodeTime(time, 10) + random;
}

/**
 * SHA-256 of each file's latest content: a write's "before" is usually the previous write's "after",
 * which was hashed already.
 */
class ContentHashes {
  private readonly last = new Map<MemoryFileName, { content: string; hash: string }>();

  of(file: MemoryFileName, content: string): string {
    const seen = this.last.get(file);
    if (seen && seen.content === content) return seen.hash;
    const hash = sha256(content);
    this.last.set(file, { content, hash });
    return hash;
  }
}

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));

export function turnFromRow(r: StoredTurnRow): ConversationTurn {
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
  private readonly newId: (time: number) => string;
  private readonly hashes = new ContentHashes();

  constructor(
    readonly db: DB,
    options: RecorderCoreOptions = {},
  ) {
    this.newId = options.newId ?? fastUlid;
  }

  /**
   * Each call is its own IMMEDIATE transaction; inside batch() (or a caller's transaction) calls join
   * it instead of opening a savepoint each, which costs a fifth of bulk ingest. Every call validates
   * its whole input before its first write, and a failure inside a batch rolls the batch back.
   */
  private tx<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : writeTx(this.db, fn);
  }

  /** Stores a snapshot; an id is drawn even when the content is already stored, so seeded id sequences stay as they were. */
  private snapshot(file: MemoryFileName, content: string, at: number, hash = this.hashes.of(file, content)): string {
    return storeSnapshot(this.db, file, content, at, this.newId(at), hash);
  }

  /** Runs several recorder calls in one transaction (bulk ingest): all of them are kept, or none. */
  batch<T>(fn: () => T): T {
    return writeTx(this.db, fn);
  }

  upsertSession(input: SessionInput): void {
    const s = parseInput(sessionInput, input, 'upsertSession', wellFormedSession);
    this.tx(() =>
      upsertRecordedSession(this.db, {
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
    const t = parseInput(turnInput, input, 'insertTurn', wellFormedTurn);
    return this.tx(() => {
      if (!sessionExists(this.db, t.sessionId)) {
        throw new AppError('Invalid', `insertTurn: sessionId: session ${t.sessionId} does not exist (call upsertSession first)`);
      }
      const id = t.id ?? this.newId(t.createdAt);
      const turnNumber = t.turnNumber ?? nextTurnNumber(this.db, t.sessionId);
      try {
        insertTurnRow(this.db, {
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
      touchSessionActivity(this.db, t.sessionId, t.createdAt);
      return { id, turnNumber };
    });
  }

  insertContextBatch(turnId: string, context: ContextItemInput[]): void {
    if (typeof turnId !== 'string' || !turnId) throw new AppError('Invalid', 'insertContextBatch: turnId: expected a turn id');
    if (!Array.isArray(context)) throw new AppError('Invalid', 'insertContextBatch: context: expected an array');
    const items = context.map((c, i) => parseInput(contextItemInput, c, `insertContextBatch: context.${i}`, wellFormedContextItem));
    this.tx(() => {
      if (!turnExists(this.db, turnId)) throw new AppError('Invalid', `insertContextBatch: turnId: turn ${turnId} does not exist`);
      items.forEach((c, i) => insertContextItem(this.db, turnId, c.role, c.message, c.timestamp, i));
    });
  }

  getTurnsBySession(sessionId: string, options: { limit?: number; before?: number } = {}): ConversationTurn[] {
    const rows = listTurnsBeforeInSession(this.db, sessionId, options.before ?? Number.MAX_SAFE_INTEGER, options.limit ?? 100);
    return rows.reverse().map(turnFromRow);
  }

  getContextByTurn(turnId: string): ConversationContextItem[] {
    return listContextOfTurn(this.db, turnId) as ConversationContextItem[];
  }

  /** Records one memory_gate decision. Returns its id. */
  insertDecision(input: DecisionInput): string {
    const d = parseInput(decisionInput, input, 'insertDecision', wellFormedDecision);
    if (d.decision !== 'NO_WRITE' && !d.candidateFact) {
      throw new AppError('Invalid', `insertDecision: candidateFact: required when the decision is ${d.decision}`);
    }
    const id = d.id ?? this.newId(d.createdAt);
    this.tx(() => {
      if (!turnExists(this.db, d.turnId)) throw new AppError('Invalid', `insertDecision: turnId: turn ${d.turnId} does not exist`);
      insertDecisionRow(this.db, {
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
    const w = parseInput(writeInput, input, 'recordWrite', wellFormedWrite);
    return this.tx(() => this.recordWriteInTx(w));
  }

  /** recordWrite without its own transaction, for services that compose it with other statements. */
  recordWriteInTx(w: ReturnType<typeof writeInput.parse>): RecordedWrite {
    const id = w.id ?? this.newId(w.createdAt);
    const file = w.targetFile as MemoryFileName;
    const beforeKnown = w.before !== undefined;
    const afterKnown = w.after !== undefined;
    const beforeSnapshotId = beforeKnown && w.before !== null ? this.snapshot(file, w.before as string, w.createdAt) : null;
    const afterHash = afterKnown && w.after !== null ? this.hashes.of(file, w.after as string) : null;
    const afterSnapshotId = afterHash !== null ? this.snapshot(file, w.after as string, w.createdAt, afterHash) : null;
    const changed = beforeKnown && afterKnown ? diffFile(file, w.before ?? null, w.after ?? null) : null;
    const rowid = insertAuditRow(this.db, {
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
    // The version chain's fields, as the health hook would read them back from the row (memoryVersions.ts).
    const isVersion = isVersionWrite(w.status, afterSnapshotId, changed?.diff ?? null);
    onWriteRecorded(
      this.db,
      id,
      isVersion
        ? { id, rowid, target_file: file, content_hash: afterSnapshotId !== null ? afterHash : null, created_at: w.createdAt }
        : null,
    );
    return { auditId: id, beforeSnapshotId, afterSnapshotId, diff: changed?.diff ?? null, lines: changed?.lines ?? null };
  }
}

/**
 * The library the plugin calls. Seed 000's ConversationStorage is asynchronous, so these methods
 * return promises; better-sqlite3 underneath is synchronous, and `recorder.core` exposes that directly.
 */
export class Recorder {
  constructor(
    readonly core: RecorderCore,
    private readonly onClose: () => void,
  ) {}

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
