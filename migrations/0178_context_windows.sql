-- Issue 16: an importer's context window as one row per turn, its messages by reference where it can.
-- A transcript's context repeats the session's recent messages: ten rows per turn in conversation_contexts
-- copied each message five times and were 44% of the pages an OpenClaw import wrote, and their per-row
-- work (table, unique index, foreign key) most of its cost above the floor. Here a turn's window is one
-- JSON array: an item is [role, timestamp, message] or, when the message is the user or agent side of
-- a turn of the same session at most 16 turn numbers back (the turn itself included),
-- [role, timestamp, null, how many turn numbers back]: a small number, not the turn's id, because the
-- bytes of a window are most of its cost. Turn numbers never change. Item i has sequence number i and context id first_id + i:
-- the importer takes first_id from conversation_contexts' AUTOINCREMENT counter, so ids stay unique
-- across both forms and readers return the ids the rows had. conversation_contexts keeps the rows the
-- recorder and earlier imports wrote; readers read both (a turn has one form or the other).
CREATE TABLE conversation_context_windows (
  turn_id  TEXT PRIMARY KEY REFERENCES conversation_turns(id) ON DELETE CASCADE,
  first_id INTEGER NOT NULL CHECK (first_id > 0),
  items    TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- A turn that is deleted (retention, a purge, a session's cascade) takes its text along: the windows
-- of the turns after it that refer to it get the text copied in first, so a kept turn reads the same
-- context. Only the 16 turn numbers after it can refer to it; the importer refers no further back.
-- Erasure rewrites the turns' text in place: references follow it, and inline items are swept as text.
CREATE TRIGGER conversation_turns_keep_context_text BEFORE DELETE ON conversation_turns
BEGIN
  UPDATE conversation_context_windows
  SET items = (
    SELECT json_group_array(
      CASE WHEN j.value ->> 3 = t.turn_number - old.turn_number
        THEN json_array(j.value ->> 0, j.value ->> 1,
          CASE j.value ->> 0 WHEN 'user' THEN old.user_message_content ELSE old.agent_message_content END)
        ELSE j.value END)
    FROM json_each(items) AS j)
  FROM conversation_turns AS t
  WHERE t.id = conversation_context_windows.turn_id
    AND t.session_id = old.session_id AND t.turn_number BETWEEN old.turn_number + 1 AND old.turn_number + 16
    -- a byte search for the reference item's tail (",null,3]") spares parsing the windows that do not point at it
    AND instr(items, ',null,' || (t.turn_number - old.turn_number) || ']') > 0;
END;
