// Outputs of the recorded-workspace calls (sessions, turns, context, search, memory_gate). The services in
// src/core/{sessions,gate,search} return exactly these, so a handler only calls the service.
// Plain JSON data; times are epoch milliseconds.
import type { AuditStatus, GateDecision, Role } from '../domain';
import type { AuditRow } from './guardian';

// ---- sessions, turns, context ----
export interface SessionRow {
  id: string;
  channelId: string;
  conversationTarget: string | null;
  accountId: string | null;
  createdAt: number;
  lastActivityAt: number;
  turnCount: number;
  decisionCount: number;
  /** True when the session is excluded (opt-out): never collected or exported. */
  excluded: boolean;
}
export interface SessionDetail extends SessionRow {
  metadata: Record<string, unknown> | null;
  writeCount: number;
}

export interface ContextItemDto {
  id: number;
  turnId: string;
  role: Role;
  message: string;
  timestamp: number;
  sequenceNumber: number;
}

export interface TurnDto {
  id: string;
  sessionId: string;
  turnNumber: number;
  userMessage: string;
  userFrom: string | null;
  agentReply: string;
  createdAt: number;
  userMetadata?: Record<string, unknown> | null;
  agentMetadata?: Record<string, unknown> | null;
}

/** A turn as the session timeline shows it: with its gate decisions and write outcomes inline. */
export interface TurnView extends TurnDto {
  decisions: GateDecisionRow[];
  writes: AuditRow[];
}
export interface TurnDetail {
  turn: TurnDto;
  context: ContextItemDto[];
  decisions: GateDecisionRow[];
  writes: AuditRow[];
}

// ---- search ----
export type SearchHitKind = 'turn' | 'decision';
export type SearchHitField = 'user_message' | 'agent_message' | 'reason' | 'candidate_fact';
export interface SearchHit {
  kind: SearchHitKind;
  /** turn id or decision id */
  id: string;
  sessionId: string;
  turnId: string;
  field: SearchHitField;
  /** The matching text (possibly cut around the match, marked with …). Plain text: never render as HTML. */
  text: string;
  /** Match ranges in `text` as [start, end) UTF-16 offsets, for highlighting. */
  matches: Array<[number, number]>;
  createdAt: number;
  /** Decision hits: the decision's type. */
  decision?: GateDecision;
}
export interface SearchPage {
  items: SearchHit[];
  /** The service answers its best hits in one page (newest first). */
  nextCursor: null;
  mode: 'fts' | 'scan';
  /** Scan mode only: the newest `scanned` rows were looked at, older ones were not. */
  scanned?: number;
}

// ---- memory_gate ----
export interface GateDecisionRow {
  id: string;
  turnId: string;
  sessionId: string;
  decision: GateDecision;
  reason: string;
  candidateFact: string | null;
  model: string;
  latencyMs: number | null;
  promptTokens?: number | null;
  completionTokens?: number | null;
  /** recorder, an importer, demo; absent in timeline views. */
  source?: string;
  createdAt: number;
  /** Status of the latest write_guardian outcome of this decision (list views). */
  writeStatus?: AuditStatus | null;
  /** The turn's messages, for list views (decisions are listed with their conversation). */
  turnNumber?: number;
  userMessage?: string;
  agentReply?: string;
  /** With `withContext`: the context window memory_gate saw. */
  context?: ContextItemDto[];
}
export interface GateDecisionPage {
  items: GateDecisionRow[];
  nextCursor: string | null;
  /** Set when a free-text filter had no term of 3+ characters: only the newest this-many decisions were searched. */
  scanned?: number;
}
export interface GateDecisionDetail {
  decision: GateDecisionRow & { rawResponse: string | null };
  turn: TurnDto;
  context: ContextItemDto[];
  /** Every write outcome of the decision, with its diff. */
  writes: AuditRow[];
}
export interface GateStatsBucket {
  /** YYYY-MM-DD (daily), YYYY-MM-DD of the Monday (weekly) or the session id (by session). */
  key: string;
  total: number;
  byDecision: Record<GateDecision, number>;
  avgLatencyMs: number | null;
  sessionCount: number;
}
export interface GateStats {
  groupBy: 'none' | 'daily' | 'weekly' | 'session';
  buckets: GateStatsBucket[];
  totals: {
    total: number;
    byDecision: Record<GateDecision, number>;
    avgLatencyMs: number | null;
    avgLatencyByDecision: Record<GateDecision, number | null>;
  };
}
