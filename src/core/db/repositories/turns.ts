// Turns and their context windows, read as the contract's TurnDto / ContextItemDto.
import type { ContextItemDto, TurnDto } from '../../../shared/contract/records';
import type { DB } from '../connection';
import { stmt } from '../statements';
import { listContextItems } from './contexts';
import type { StoredTurnRow } from './recorder';

const parseJson = (text: string | null): Record<string, unknown> | null => (text ? (JSON.parse(text) as Record<string, unknown>) : null);

export function turnDtoFromRow(r: StoredTurnRow): TurnDto {
  return {
    id: r.id,
    sessionId: r.session_id,
    turnNumber: r.turn_number,
    userMessage: r.user_message_content,
    userFrom: r.user_from,
    agentReply: r.agent_message_content,
    createdAt: r.created_at,
    userMetadata: parseJson(r.user_metadata),
    agentMetadata: parseJson(r.agent_metadata),
  };
}

export function findTurnById(db: DB, id: string): TurnDto | undefined {
  const row = stmt<StoredTurnRow>(db, 'SELECT * FROM conversation_turns WHERE id = ?').get(id);
  return row && turnDtoFromRow(row);
}

export function turnExists(db: DB, id: string): boolean {
  return stmt(db, 'SELECT 1 FROM conversation_turns WHERE id = ?').get(id) !== undefined;
}

/** One page of a session's turns by turn number (`after`: the last turn number of the previous page). */
export function listTurnsOfSession(
  db: DB,
  q: { sessionId: string; after?: number; order: 'asc' | 'desc'; limitPlusOne: number },
): TurnDto[] {
  const cmp = q.order === 'asc' ? '>' : '<';
  const sql = `SELECT * FROM conversation_turns WHERE session_id = @sessionId ${q.after !== undefined ? `AND turn_number ${cmp} @after` : ''}
     ORDER BY turn_number ${q.order === 'asc' ? 'ASC' : 'DESC'} LIMIT @limitPlusOne`;
  return stmt<StoredTurnRow>(db, sql).all({ sessionId: q.sessionId, after: q.after, limitPlusOne: q.limitPlusOne }).map(turnDtoFromRow);
}

/** Rows or a window (contexts.ts): roles are 'user' or 'agent' in both, as their CHECK and the importer write them. */
export function listContextOfTurn(db: DB, turnId: string): ContextItemDto[] {
  return listContextItems(db, turnId) as ContextItemDto[];
}
