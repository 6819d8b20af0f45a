// Migration 0178 adds context windows beside conversation_contexts: the rows a workspace already has stay as
// they are and read as before, ids continue after them, and the delete trigger leaves row contexts alone.
import { describe, expect, it } from 'vitest';
import { latestVersion } from '../../src/core/db/migrate';
import { CONTEXT_ITEMS_SQL, insertContextWindows, listContextItems, reserveContextIds } from '../../src/core/db/repositories/contexts';
import { listContextNewestFirst } from '../../src/core/db/repositories/collect';
import { emptyDatabase, explain, getTableData, insertData, updateToVersion } from '../helpers/db';

const SESSION = { id: 's1', channel_id: 'discord', created_at: 1_000, last_activity_at: 9_000 };
const turn = (n: number) => ({
  id: `t${n}`,
  session_id: 's1',
  turn_number: n,
  user_message_content: `question ${n} 记录一下`,
  agent_message_content: `answer ${n}`,
  created_at: 1_000 + n,
});
const ROWS = [
  { turn_id: 't0', role: 'user', message: 'question 0 记录一下', timestamp: 1_000, sequence_number: 0 },
  { turn_id: 't0', role: 'agent', message: 'answer 0', timestamp: 1_001, sequence_number: 1 },
  { turn_id: 't1', role: 'user', message: 'question 0 记录一下', timestamp: 1_000, sequence_number: 0 },
  { turn_id: 't1', role: 'agent', message: 'answer 0', timestamp: 1_001, sequence_number: 1 },
  { turn_id: 't1', role: 'user', message: 'question 1 记录一下', timestamp: 1_002, sequence_number: 2 },
];

describe('migration 0178: context windows', () => {
  it('keeps every context row, reads it as before, and continues its ids', () => {
    const { db } = emptyDatabase();
    updateToVersion(db, 177);
    insertData(db, 'sessions', [SESSION]);
    insertData(db, 'conversation_turns', [turn(0), turn(1), turn(2)]);
    insertData(db, 'conversation_contexts', ROWS);
    const before = getTableData(db, 'conversation_contexts');
    const read = (id: string) =>
      db
        .prepare(
          'SELECT id, turn_id AS turnId, role, message, timestamp, sequence_number AS sequenceNumber FROM conversation_contexts WHERE turn_id = ? ORDER BY sequence_number',
        )
        .all(id);
    const readBefore = ['t0', 't1', 't2'].map(read);

    updateToVersion(db, latestVersion());
    expect(getTableData(db, 'conversation_contexts')).toEqual(before);
    expect(getTableData(db, 'conversation_context_windows')).toEqual([]);
    expect(['t0', 't1', 't2'].map((id) => listContextItems(db, id))).toEqual(readBefore);
    expect(listContextNewestFirst(db, 't1', 2)).toEqual([
      { role: 'user', message: 'question 1 记录一下' },
      { role: 'agent', message: 'answer 0' },
    ]);

    // A window written now takes the ids after the rows', and a row written after it the next one.
    const first = reserveContextIds(db, 3);
    expect(first).toBe(6);
    insertContextWindows(db, [
      {
        turnId: 't2',
        firstId: first,
        items: JSON.stringify([
          ['agent', 1_001, 'answer 0'],
          ['user', 1_002, null, 1],
          ['agent', 1_003, null, 0],
        ]),
      },
    ]);
    db.prepare(
      "INSERT INTO conversation_contexts (turn_id, role, message, timestamp, sequence_number) VALUES ('t0', 'user', 'x', 1, 2)",
    ).run();
    expect(db.prepare("SELECT id FROM conversation_contexts WHERE turn_id = 't0' AND sequence_number = 2").pluck().get()).toBe(9);
    expect(listContextItems(db, 't2')).toEqual([
      { id: 6, turnId: 't2', role: 'agent', message: 'answer 0', timestamp: 1_001, sequenceNumber: 0 },
      { id: 7, turnId: 't2', role: 'user', message: 'question 1 记录一下', timestamp: 1_002, sequenceNumber: 1 },
      { id: 8, turnId: 't2', role: 'agent', message: 'answer 2', timestamp: 1_003, sequenceNumber: 2 },
    ]);

    // Deleting t1 copies its text into t2's window; t1's rows go by their cascade, t0's rows stay.
    const t2 = listContextItems(db, 't2');
    db.prepare("DELETE FROM conversation_turns WHERE id = 't1'").run();
    expect(listContextItems(db, 't2')).toEqual(t2);
    expect(JSON.parse(db.prepare("SELECT items FROM conversation_context_windows WHERE turn_id = 't2'").pluck().get() as string)).toEqual([
      ['agent', 1_001, 'answer 0'],
      ['user', 1_002, 'question 1 记录一下'],
      ['agent', 1_003, null, 0],
    ]);
    expect(getTableData(db, 'conversation_contexts').map((r) => r.turn_id)).toEqual(['t0', 't0', 't0']);
    // A session's delete cascades through its turns, the trigger included.
    db.prepare("DELETE FROM sessions WHERE id = 's1'").run();
    expect(db.prepare('SELECT count(*) FROM conversation_context_windows').pluck().get()).toBe(0);
  });

  it('reads a turn’s context through the contexts index and the window’s key', () => {
    const { db } = emptyDatabase();
    updateToVersion(db, latestVersion());
    const plan = explain(db, CONTEXT_ITEMS_SQL, { turnId: 't1' });
    expect(plan).toMatch(/SEARCH conversation_contexts USING INDEX sqlite_autoindex_conversation_contexts_1 \(turn_id=\?\)/);
    expect(plan).toMatch(/SEARCH w USING PRIMARY KEY \(turn_id=\?\)/);
    expect(plan).toMatch(/SEARCH t USING INDEX sqlite_autoindex_conversation_turns_1 \(id=\?\)/);
    expect(plan).toMatch(/SEARCH s USING INDEX sqlite_autoindex_conversation_turns_2 \(session_id=\? AND turn_number=\?\)/);
  });
});
