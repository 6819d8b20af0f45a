import type { DB } from '../db/connection';
import { insertTurnRow, nextTurnNumber, sessionExists, turnExists, type TurnParams } from '../db/repositories/recorder';
import {
  fillDecisionFact,
  findSameExchangeTurn,
  findTurnOfUserMessage,
  insertStagedTurns,
  insertDecisionIfNew,
  stageTurnRows,
  insertPluginAuditIfNew,
  upsertImportedSession,
  widenSessionSpan,
  type ImportedAuditParams,
} from '../db/repositories/imports';
import { insertContextWindows, listExistingTurnIds, reserveContextIds, type ContextWindowParams } from '../db/repositories/contexts';
import { ContextWindowEncoder } from './contextWindows';
import { HeldTurns } from './heldTurns';
import type { ReportBuilder } from './report';

export interface ImportSessionRow {
  id: string;
  channelId: string;
  conversationTarget?: string | null;
  accountId?: string | null;
  createdAt: number;
  lastActivityAt: number;
  metadata?: Record<string, unknown>;
}

/** One message of the context window an importer saw before a turn. */
export interface ContextSnapshot {
  role: 'user' | 'agent';
  message: string;
  timestamp: number;
}

export interface ImportTurnRow {
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
  context: ContextSnapshot[];
}

export interface ImportDecisionRow {
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

/** An audit as importers build it: the repository's row with its metadata still an object. */
export type ImportAuditRow = Omit<ImportedAuditParams, 'metadata'> & { metadata: Record<string, unknown> };

/** A turn's context window, encoded when the turn is taken (its references are to turns taken before it). */
interface EncodedWindow {
  turnId: string;
  context: readonly ContextSnapshot[];
  items: string;
  /** Turns other than its own that it refers to. */
  refersTo: string[];
}

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/** Held turns staged and context windows written per statement: 50 rows stay far below SQLite's 32,766 parameters. */
const ROWS_PER_INSERT = 50;
/**
 * Held turns are written before the commit, or when this many are held or their texts and metadata reach this
 * many characters: the staging table's pages and the trigram index's pending terms stay in memory until then.
 * The bench's transcript flushes about every 350 turns; an archive or a store's rows go in one transaction.
 */
const HELD_TURNS_PER_FLUSH = 2000;
const HELD_CHARS_PER_FLUSH = 1_000_000;

const turnParams = (t: ImportTurnRow, turnNumber: number): TurnParams => ({
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

/**
 * The rows importers write, through the recorder's statements and their INSERT OR IGNORE variants, on
 * ids derived from the source so a re-import adds nothing. Turns are checked by id before a turn number is taken, because the
 * (session_id, turn_number) constraint would otherwise make OR IGNORE drop a new turn silently.
 */
export class ImportStore {
  /** Turns not written yet (holdTurns); null: every turn is written at once. */
  private held: HeldTurns<EncodedWindow> | null = null;
  /**
   * The id turnExists last found in neither the held turns nor the database: the transcript reader asks
   * before its duplicate check, and insertTurn then does not look it up a second time.
   */
  private knownAbsent: string | null = null;
  private readonly windows = new ContextWindowEncoder();

  constructor(
    readonly db: DB,
    private readonly report: ReportBuilder,
  ) {}

  /**
   * From now on turns are held, staged and written in one statement (insertStagedTurns says why), by
   * flushTurns or when enough are held (HELD_TURNS_PER_FLUSH). The caller flushes before every commit: held turns are part of
   * the open transaction, so rows and the cursor that covers them still land together.
   */
  holdTurns(): void {
    this.held ??= new HeldTurns();
  }

  /** Writes the held turns, their context items and their sessions' spans. */
  flushTurns(): void {
    const held = this.held;
    if (!held?.size) return;
    this.held = new HeldTurns();
    this.knownAbsent = null;
    stageTurnRows(this.db, held.unstaged);
    // Staged rows go with their transaction. Every batch flushes before it commits, so a rolled-back batch takes
    // its held turns along and the run ends; should a run go on, its windows must not point at turns not written.
    if (insertStagedTurns(this.db) !== held.size) throw new Error('held turns were lost with a rolled-back transaction');
    this.insertWindows(held.windows);
    for (const [sessionId, { from, to }] of held.sessionSpans()) {
      widenSessionSpan(this.db, sessionId, from);
      widenSessionSpan(this.db, sessionId, to);
    }
  }

  upsertSession(s: ImportSessionRow): void {
    const isNew = !sessionExists(this.db, s.id);
    upsertImportedSession(this.db, {
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
    return findSameExchangeTurn(this.db, sessionId, from, to, notId, userContent, agentContent);
  }

  turnExists(id: string): boolean {
    if (this.held?.has(id)) return true;
    if (id === this.knownAbsent) return false;
    const exists = turnExists(this.db, id);
    this.knownAbsent = exists ? null : id;
    return exists;
  }

  /** A turn of the session with this user text, close in time: held or written (OpenClaw's replies to one message). */
  turnOfUserMessage(sessionId: string, from: number, to: number, userContent: string): string | undefined {
    return this.held?.ofUserText(sessionId, from, to, userContent) ?? findTurnOfUserMessage(this.db, sessionId, from, to, userContent);
  }

  /** Inserts a turn with its context window (or holds it, see holdTurns); returns false when it was already imported. */
  insertTurn(t: ImportTurnRow): boolean {
    if (this.turnExists(t.id)) {
      this.report.inserted('conversation_turns', 0);
      return false;
    }
    this.knownAbsent = null;
    if (this.held) {
      const params = turnParams(t, this.held.nextNumber(t.sessionId) ?? nextTurnNumber(this.db, t.sessionId));
      this.held.add(params, this.encodeWindow(params, t.context));
      this.report.count('conversation_turns');
      if (this.held.unstaged.length >= ROWS_PER_INSERT) {
        stageTurnRows(this.db, this.held.unstaged);
        this.held.unstaged = [];
      }
      if (this.held.size >= HELD_TURNS_PER_FLUSH || this.held.chars >= HELD_CHARS_PER_FLUSH) this.flushTurns();
      return true;
    }
    const params = turnParams(t, nextTurnNumber(this.db, t.sessionId));
    insertTurnRow(this.db, params);
    this.report.count('conversation_turns');
    // Importers that write turns at once run each line in a savepoint that may be rolled back alone: such a
    // turn's window refers to the turn itself only, and no later window refers to it.
    const window = this.encodeWindow(params, t.context, true);
    this.windows.forget([params.id]);
    this.insertWindows([window]);
    widenSessionSpan(this.db, t.sessionId, t.createdAt);
    return true;
  }

  /** Remembers the turn's texts for later windows, then encodes its own (which may refer to the turn itself). */
  private encodeWindow(p: TurnParams, context: readonly ContextSnapshot[], selfOnly = false): EncodedWindow {
    this.windows.written(p.id, { sessionId: p.sessionId, turnNumber: p.turnNumber, user: p.userContent, agent: p.agentContent });
    if (!context.length) return { turnId: p.id, context, items: '', refersTo: [] };
    return { turnId: p.id, context, ...this.windows.encode(p.id, context, selfOnly) };
  }

  /**
   * Windows may refer to turns of an earlier transaction of this run. Should one have been rolled back (a
   * busy source, a failed batch), the turn is gone: such windows are encoded again without it. One query per
   * flush of held turns, for the few turns before it.
   */
  private withoutLostReferences(windows: readonly EncodedWindow[]): readonly EncodedWindow[] {
    const here = new Set(windows.map((w) => w.turnId));
    const outside = [...new Set(windows.flatMap((w) => w.refersTo.filter((id) => !here.has(id))))];
    if (!outside.length) return windows;
    const present = new Set(listExistingTurnIds(this.db, outside));
    const lost = outside.filter((id) => !present.has(id));
    if (!lost.length) return windows;
    this.windows.forget(lost);
    return windows.map((w) => (w.refersTo.some((id) => lost.includes(id)) ? { ...w, ...this.windows.encode(w.turnId, w.context) } : w));
  }

  /**
   * Writes the windows of turns just written, in order, after their turns (a window refers to them). Their
   * context ids are taken in one step, in the order rows would have taken them.
   */
  private insertWindows(windows: readonly EncodedWindow[]): void {
    const filled = this.withoutLostReferences(windows.filter((w) => w.context.length > 0));
    let items = 0;
    for (const w of filled) items += w.context.length;
    if (!items) return;
    let nextId = reserveContextIds(this.db, items);
    const rows: ContextWindowParams[] = filled.map((w) => {
      const row = { turnId: w.turnId, firstId: nextId, items: w.items };
      nextId += w.context.length;
      return row;
    });
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) insertContextWindows(this.db, rows.slice(i, i + ROWS_PER_INSERT));
    this.report.count('conversation_contexts', items);
  }

  insertDecision(d: ImportDecisionRow): boolean {
    return this.report.inserted('memory_gate_decisions', insertDecisionIfNew(this.db, { ...d, candidateFact: d.candidateFact ?? null }));
  }

  insertAudit(a: ImportAuditRow): boolean {
    const changes = insertPluginAuditIfNew(this.db, { ...a, metadata: json(a.metadata) });
    if (changes && a.candidateFact) fillDecisionFact(this.db, a.decisionId, a.candidateFact);
    return this.report.inserted('write_guardian_audit', changes);
  }
}
