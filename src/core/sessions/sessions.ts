// Sessions and their timelines for the workbench: paged sessions, one session by id, turns with their gate
// decisions and write outcomes inline, and one turn with its context window.
import type { Page } from '../../shared/paging';
import type { ContextItemDto, SessionDetail, SessionRow, TurnDetail, TurnDto, TurnView } from '../../shared/contract/records';
import { AppError } from '../../shared/errors';
import type { ServiceContext } from '../context';
import { clampLimit, decodeCursor, encodeCursor, pageOf } from '../db/paging';
import { listWritesOfTurns } from '../db/repositories/audits';
import { listDecisionsOfTurns } from '../db/repositories/decisions';
import {
  findSessionById,
  listSessionsPage,
  listSessionsSql,
  sessionExists,
  sessionFromRow,
  type SessionFilter,
} from '../db/repositories/sessions';
import { findTurnById, listContextOfTurn, listTurnsOfSession, turnExists } from '../db/repositories/turns';

export interface ListSessionsInput {
  limit?: number;
  cursor?: string;
  channelId?: string;
  /** Case-insensitive substring of the session key. */
  query?: string;
}

export interface ListTurnsInput {
  sessionId: string;
  limit?: number;
  cursor?: string;
  /** Start the timeline at this turn (a link from a search hit); ignored when a cursor is given. */
  fromTurn?: string;
  /** Oldest first (default, reads like a chat) or newest first. */
  order?: 'asc' | 'desc';
}

function sessionFilter(input: ListSessionsInput): SessionFilter & { limit: number } {
  const limit = clampLimit(input.limit, 50);
  const after = decodeCursor(input.cursor, ['number', 'number']) as [number, number] | undefined;
  return {
    channelId: input.channelId || undefined,
    query: input.query?.trim().toLowerCase() || undefined,
    after,
    limitPlusOne: limit + 1,
    limit,
  };
}

/** The SQL of one page, exposed so tests can check its query plan. */
export function listSessionsPlanSql(input: ListSessionsInput): { sql: string; params: Record<string, unknown> } {
  return listSessionsSql(sessionFilter(input));
}

/** Sessions, most recently active first, paged by keyset on last_activity_at. */
export function listSessions(ctx: ServiceContext, input: ListSessionsInput = {}): Page<SessionRow> {
  const f = sessionFilter(input);
  return pageOf(listSessionsPage(ctx.db, f), f.limit, (r) => [r.last_activity_at, r.rid], sessionFromRow);
}

export function getSession(ctx: ServiceContext, id: string): SessionDetail {
  const s = findSessionById(ctx.db, id);
  if (!s) throw new AppError('NotFound', `session ${id} not found`);
  return s;
}

function attach(ctx: ServiceContext, turns: TurnDto[]): TurnView[] {
  const ids = turns.map((t) => t.id);
  const decisions = listDecisionsOfTurns(ctx.db, ids);
  const writes = listWritesOfTurns(ctx.db, ids);
  return turns.map((t) => ({
    ...t,
    decisions: decisions.filter((d) => d.turnId === t.id),
    writes: writes.filter((w) => w.turnId === t.id),
  }));
}

/** The cursor that starts a session's timeline at one turn (oldest-first order). */
function cursorAtTurn(ctx: ServiceContext, sessionId: string, turnId: string): string {
  const turn = findTurnById(ctx.db, turnId);
  if (!turn) throw new AppError('NotFound', `turn ${turnId} not found`);
  if (turn.sessionId !== sessionId) throw new AppError('Invalid', `turn ${turnId} is not in session ${sessionId}`);
  return encodeCursor([turn.turnNumber - 1]);
}

/** A session's turns with each turn's decisions and write outcomes inline, paged by turn number. */
export function listTurns(ctx: ServiceContext, input: ListTurnsInput): Page<TurnView> {
  if (!input || typeof input.sessionId !== 'string' || !input.sessionId) throw new AppError('Invalid', 'sessionId: expected a session key');
  const order = input.order ?? 'asc';
  if (order !== 'asc' && order !== 'desc') throw new AppError('Invalid', `order: expected asc or desc, got ${order}`);
  const limit = clampLimit(input.limit, 50);
  if (!sessionExists(ctx.db, input.sessionId)) throw new AppError('NotFound', `session ${input.sessionId} not found`);
  const cursor = input.cursor ?? (input.fromTurn && order === 'asc' ? cursorAtTurn(ctx, input.sessionId, input.fromTurn) : undefined);
  const after = decodeCursor(cursor, ['number'])?.[0] as number | undefined;
  const rows = listTurnsOfSession(ctx.db, { sessionId: input.sessionId, after, order, limitPlusOne: limit + 1 });
  const page = pageOf(
    rows,
    limit,
    (t) => [t.turnNumber],
    (t) => t,
  );
  return { ...page, items: attach(ctx, page.items) };
}

/** One turn with its context window (what memory_gate saw), decisions and write outcomes. */
export function getTurn(ctx: ServiceContext, turnId: string): TurnDetail {
  if (typeof turnId !== 'string' || !turnId) throw new AppError('Invalid', 'turnId: expected a turn id');
  const turn = findTurnById(ctx.db, turnId);
  if (!turn) throw new AppError('NotFound', `turn ${turnId} not found`);
  const [view] = attach(ctx, [turn]);
  const { decisions, writes, ...plain } = view!;
  return { turn: plain, context: listContextOfTurn(ctx.db, turnId), decisions, writes };
}

/** The context window memory_gate saw for one turn. */
export function contextOfTurn(ctx: ServiceContext, turnId: string): ContextItemDto[] {
  if (!turnExists(ctx.db, turnId)) throw new AppError('NotFound', `turn ${turnId} not found`);
  return listContextOfTurn(ctx.db, turnId);
}
