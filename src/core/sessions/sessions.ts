// Sessions and their timelines for the workbench: paged sessions, turns with their gate decisions
// and write outcomes inline, and one turn with its context window.
import type { ConversationContextItem, ConversationTurn, GateDecision } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { turnFromRow } from '../recorder/recorder';
import type { ServiceContext } from '../context';
import { contextOf } from '../gate/list';
import { writesOfTurns, type WriteOutcome } from '../gate/show';
import { stmt } from '../db/statements';
import { clampLimit, decodeCursor, encodeCursor } from '../db/paging';

export interface SessionListItem {
  id: string;
  channelId: string;
  conversationTarget: string | null;
  accountId: string | null;
  createdAt: number;
  lastActivityAt: number;
  turnCount: number;
  decisionCount: number;
  excluded: boolean;
  metadata: Record<string, unknown> | null;
}

export interface ListSessionsInput {
  limit?: number;
  cursor?: string;
  channelId?: string;
  /** Case-insensitive substring of the session key. */
  query?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

interface SessionRow {
  rid: number;
  id: string;
  channel_id: string;
  conversation_target: string | null;
  account_id: string | null;
  created_at: number;
  last_activity_at: number;
  metadata: string | null;
  turn_count: number;
  decision_count: number;
  excluded: number;
}

export function listSessionsSql(input: ListSessionsInput): { sql: string; params: Record<string, unknown>; limit: number } {
  const limit = clampLimit(input.limit, 50);
  const clauses: string[] = [];
  const params: Record<string, unknown> = { limitPlusOne: limit + 1 };
  if (input.channelId) {
    clauses.push('s.channel_id = @channelId');
    params.channelId = input.channelId;
  }
  if (input.query?.trim()) {
    clauses.push('instr(lower(s.id), @query) > 0');
    params.query = input.query.trim().toLowerCase();
  }
  const key = decodeCursor(input.cursor, ['number', 'number']);
  if (key) {
    clauses.push('(s.last_activity_at, s.rowid) < (@cursorAt, @cursorRowid)');
    params.cursorAt = key[0];
    params.cursorRowid = key[1];
  }
  const sql = `SELECT s.rowid AS rid, s.*,
      (SELECT count(*) FROM conversation_turns t WHERE t.session_id = s.id) AS turn_count,
      (SELECT count(*) FROM memory_gate_decisions d WHERE d.session_id = s.id) AS decision_count,
      EXISTS (SELECT 1 FROM excluded_sessions x WHERE x.session_id = s.id) AS excluded
    FROM sessions s ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''}
    ORDER BY s.last_activity_at DESC, s.rowid DESC LIMIT @limitPlusOne`;
  return { sql, params, limit };
}

/** Sessions, most recently active first, paged by keyset on last_activity_at. */
export function listSessions(ctx: ServiceContext, input: ListSessionsInput = {}): Page<SessionListItem> {
  const { sql, params, limit } = listSessionsSql(input);
  const rows = stmt(ctx.db, sql).all(params) as SessionRow[];
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => ({
      id: r.id,
      channelId: r.channel_id,
      conversationTarget: r.conversation_target,
      accountId: r.account_id,
      createdAt: r.created_at,
      lastActivityAt: r.last_activity_at,
      turnCount: r.turn_count,
      decisionCount: r.decision_count,
      excluded: Boolean(r.excluded),
      metadata: r.metadata ? (JSON.parse(r.metadata) as Record<string, unknown>) : null,
    })),
    nextCursor: rows.length > limit && last ? encodeCursor([last.last_activity_at, last.rid]) : null,
  };
}

export interface TurnDecision {
  id: string;
  decision: GateDecision;
  reason: string;
  candidateFact: string | null;
  llmModel: string;
  latencyMs: number | null;
  createdAt: number;
}

export interface TimelineTurn extends ConversationTurn {
  decisions: TurnDecision[];
  writes: WriteOutcome[];
}

export interface ListTurnsInput {
  sessionId: string;
  limit?: number;
  cursor?: string;
  /** Oldest first (default, reads like a chat) or newest first. */
  order?: 'asc' | 'desc';
}

function decisionsOfTurns(ctx: ServiceContext, turnIds: string[]): Array<TurnDecision & { turnId: string }> {
  if (!turnIds.length) return [];
  return stmt(
    ctx.db,
    `SELECT id, turn_id AS turnId, decision, reason, candidate_fact AS candidateFact, llm_model AS llmModel,
       llm_latency_ms AS latencyMs, created_at AS createdAt
     FROM memory_gate_decisions WHERE turn_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, seq`,
  ).all(JSON.stringify(turnIds)) as Array<TurnDecision & { turnId: string }>;
}

function attach(ctx: ServiceContext, turns: ConversationTurn[]): TimelineTurn[] {
  const ids = turns.map((t) => t.id);
  const decisions = decisionsOfTurns(ctx, ids);
  const writes = writesOfTurns(ctx, ids) as Array<WriteOutcome & { turnId: string }>;
  return turns.map((t) => ({
    ...t,
    decisions: decisions.filter((d) => d.turnId === t.id).map(({ turnId: _t, ...d }) => d),
    writes: writes.filter((w) => w.turnId === t.id).map(({ turnId: _t, ...w }) => w),
  }));
}

/** A session's turns with each turn's decisions and write outcomes inline, paged by turn number. */
export function listTurns(ctx: ServiceContext, input: ListTurnsInput): Page<TimelineTurn> {
  if (!input || typeof input.sessionId !== 'string' || !input.sessionId) throw new AppError('Invalid', 'sessionId: expected a session key');
  const order = input.order ?? 'asc';
  if (order !== 'asc' && order !== 'desc') throw new AppError('Invalid', `order: expected asc or desc, got ${order}`);
  const limit = clampLimit(input.limit, 50);
  if (!stmt(ctx.db, 'SELECT 1 FROM sessions WHERE id = ?').get(input.sessionId)) {
    throw new AppError('NotFound', `session ${input.sessionId} not found`);
  }
  const key = decodeCursor(input.cursor, ['number']);
  const cmp = order === 'asc' ? '>' : '<';
  const rows = stmt(
    ctx.db,
    `SELECT * FROM conversation_turns WHERE session_id = @sessionId ${key ? `AND turn_number ${cmp} @after` : ''}
     ORDER BY turn_number ${order.toUpperCase()} LIMIT @limitPlusOne`,
  ).all({ sessionId: input.sessionId, after: key?.[0], limitPlusOne: limit + 1 }) as Array<Parameters<typeof turnFromRow>[0]>;
  const page = rows.slice(0, limit).map(turnFromRow);
  const last = page[page.length - 1];
  return { items: attach(ctx, page), nextCursor: rows.length > limit && last ? encodeCursor([last.turnNumber]) : null };
}

export interface TurnDetail {
  turn: TimelineTurn;
  context: ConversationContextItem[];
}

/** One turn with its context window (what memory_gate saw), decisions and write outcomes. */
export function getTurn(ctx: ServiceContext, turnId: string): TurnDetail {
  if (typeof turnId !== 'string' || !turnId) throw new AppError('Invalid', 'turnId: expected a turn id');
  const row = stmt(ctx.db, 'SELECT * FROM conversation_turns WHERE id = ?').get(turnId) as Parameters<typeof turnFromRow>[0] | undefined;
  if (!row) throw new AppError('NotFound', `turn ${turnId} not found`);
  return { turn: attach(ctx, [turnFromRow(row)])[0], context: contextOf(ctx, turnId) };
}
