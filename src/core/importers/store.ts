import type { DB } from '../db/connection';
import { insertTurnRow, nextTurnNumber, sessionExists, turnExists } from '../db/repositories/recorder';
import {
  fillDecisionFact,
  findSameExchangeTurn,
  insertContextItemIfNew,
  insertDecisionIfNew,
  insertPluginAuditIfNew,
  upsertImportedSession,
  widenSessionSpan,
} from '../db/repositories/imports';
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

export interface ImportAuditRow {
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
 * The rows importers write, through the recorder's statements and their INSERT OR IGNORE variants, on
 * ids derived from the source so a re-import adds nothing. Turns are checked by id before a turn number is taken, because the
 * (session_id, turn_number) constraint would otherwise make OR IGNORE drop a new turn silently.
 */
export class ImportStore {
  constructor(
    readonly db: DB,
    private readonly report: ReportBuilder,
  ) {}

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
    return turnExists(this.db, id);
  }

  /** Inserts a turn with its context window; returns false when it was already imported. */
  insertTurn(t: ImportTurnRow): boolean {
    if (this.turnExists(t.id)) {
      this.report.inserted('conversation_turns', 0);
      return false;
    }
    insertTurnRow(this.db, {
      id: t.id,
      sessionId: t.sessionId,
      turnNumber: nextTurnNumber(this.db, t.sessionId),
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
      contexts += insertContextItemIfNew(this.db, t.id, c.role, c.message, c.timestamp, i);
    });
    this.report.count('conversation_contexts', contexts);
    widenSessionSpan(this.db, t.sessionId, t.createdAt);
    return true;
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
