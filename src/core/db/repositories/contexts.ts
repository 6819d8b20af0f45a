// A turn's context window, stored in one of two forms (migration 0178): rows of conversation_contexts (the
// recorder, and imports before 0178) or one conversation_context_windows row whose JSON items hold a message
// or refer to a turn's side. Every reader goes through CONTEXT_ITEMS_SQL, so both read alike.
import type { DB } from '../connection';
import { stmt } from '../statements';

/**
 * Every context item of turn @turnId: id, turnId, role, message, timestamp, sequenceNumber. A referenced
 * message is read from its turn; a deleted turn's text was copied into the window first (0178's trigger).
 */
export const CONTEXT_ITEMS_SQL = `
  SELECT id, turn_id AS turnId, role, message, timestamp, sequence_number AS sequenceNumber
  FROM conversation_contexts WHERE turn_id = @turnId
  UNION ALL
  SELECT w.first_id + j.key, w.turn_id, j.value ->> 0, coalesce(j.value ->> 2, CASE j.value ->> 0
      WHEN 'user' THEN s.user_message_content ELSE s.agent_message_content END), j.value ->> 1, j.key
  FROM conversation_context_windows AS w JOIN conversation_turns AS t ON t.id = w.turn_id JOIN json_each(w.items) AS j
    LEFT JOIN conversation_turns AS s ON s.session_id = t.session_id AND s.turn_number = t.turn_number - (j.value ->> 3)
  WHERE w.turn_id = @turnId`;

export interface ContextItemRow {
  id: number;
  turnId: string;
  role: string;
  message: string;
  timestamp: number;
  sequenceNumber: number;
}

/** A turn's context, oldest first. */
export function listContextItems(db: DB, turnId: string): ContextItemRow[] {
  return stmt<ContextItemRow>(db, `${CONTEXT_ITEMS_SQL} ORDER BY sequenceNumber`).all({ turnId });
}

/** The newest `limit` context messages of a turn, newest first. */
export function listContextMessagesNewestFirst(db: DB, turnId: string, limit: number): Array<{ role: string; message: string }> {
  return stmt<{ role: string; message: string }>(
    db,
    `SELECT role, message FROM (${CONTEXT_ITEMS_SQL}) ORDER BY sequenceNumber DESC LIMIT @limit`,
  ).all({ turnId, limit });
}

/** A context message of one of several turns (listNewestContextOfTurns). */
export interface TurnContextRow {
  turnId: string;
  role: string;
  message: string;
  sequenceNumber: number;
}

/**
 * The newest `limit` context messages of each of some turns, in no set order: what
 * listContextMessagesNewestFirst returns for each, read in one statement for a page of collection.
 * Both forms are read as CONTEXT_ITEMS_SQL reads them; a window's items are numbered from 0, so its
 * newest `limit` are those numbered from its length minus `limit`.
 */
export function listNewestContextOfTurns(db: DB, turnIds: readonly string[], limit: number): TurnContextRow[] {
  return stmt<TurnContextRow>(
    db,
    `SELECT c.turn_id AS turnId, c.role, c.message, c.sequence_number AS sequenceNumber
      FROM json_each(@turnIds) AS p JOIN conversation_contexts AS c ON c.id IN (
        SELECT id FROM conversation_contexts WHERE turn_id = p.value ORDER BY sequence_number DESC LIMIT @limit)
      UNION ALL
      SELECT w.turn_id, j.value ->> 0, coalesce(j.value ->> 2, CASE j.value ->> 0
          WHEN 'user' THEN s.user_message_content ELSE s.agent_message_content END), j.key
      FROM json_each(@turnIds) AS p JOIN conversation_context_windows AS w ON w.turn_id = p.value
        JOIN conversation_turns AS t ON t.id = w.turn_id JOIN json_each(w.items) AS j
        LEFT JOIN conversation_turns AS s ON s.session_id = t.session_id AND s.turn_number = t.turn_number - (j.value ->> 3)
      WHERE j.key >= json_array_length(w.items) - @limit`,
  ).all({ turnIds: JSON.stringify(turnIds), limit });
}

/**
 * One item of a stored window: a message, or a reference to the user or agent side (by role) of the turn of the
 * same session `back` turn numbers before the window's own (0: the turn itself).
 */
export type ContextWindowItem =
  [role: string, timestamp: number, message: string] | [role: string, timestamp: number, message: null, back: number];

export interface ContextWindowParams {
  turnId: string;
  firstId: number;
  items: string;
}

/**
 * Takes `count` context ids from conversation_contexts' AUTOINCREMENT counter and returns the first: a
 * window's items get the ids their rows would have had, and rows inserted later get higher ones.
 */
export function reserveContextIds(db: DB, count: number): number {
  const last = stmt(db, "UPDATE sqlite_sequence SET seq = seq + ? WHERE name = 'conversation_contexts' RETURNING seq")
    .pluck()
    .get(count) as number | undefined;
  if (last !== undefined) return last - count + 1;
  // No context row was ever inserted, so the counter does not exist yet: AUTOINCREMENT would start after max(id).
  const made = stmt(
    db,
    "INSERT INTO sqlite_sequence (name, seq) SELECT 'conversation_contexts', coalesce(max(id), 0) + ? FROM conversation_contexts RETURNING seq",
  )
    .pluck()
    .get(count) as number;
  return made - count + 1;
}

/** Which of these turns exist. */
export function listExistingTurnIds(db: DB, ids: readonly string[]): string[] {
  return stmt(db, 'SELECT id FROM conversation_turns WHERE id IN (SELECT value FROM json_each(?))')
    .pluck()
    .all(JSON.stringify(ids)) as string[];
}

const WINDOW_ROW = '(?, ?, ?)';

/** Inserts windows in one statement: only of turns just inserted, so none has one yet. */
export function insertContextWindows(db: DB, rows: readonly ContextWindowParams[]): void {
  if (!rows.length) return;
  const params: unknown[] = [];
  for (const r of rows) params.push(r.turnId, r.firstId, r.items);
  stmt(
    db,
    `INSERT INTO conversation_context_windows (turn_id, first_id, items) VALUES ${Array(rows.length).fill(WINDOW_ROW).join(', ')}`,
  ).run(params);
}
