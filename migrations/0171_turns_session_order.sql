-- Issue 16: collection reads the next turns of a session in (created_at, turn_number) order, a couple at a
-- time, for every decision. With the index on (session_id, created_at) SQLite read and sorted every later
-- turn of the session each time (a temporary B-tree per decision). With turn_number in the index the
-- row-value range (created_at, turn_number) > (?, ?) reads only the rows it returns, and the session
-- timelines ordered by created_at and turn_number need no sort either. The wider index replaces the
-- narrower one, so the recorder keeps maintaining one index on these columns, not two.
DROP INDEX IF EXISTS idx_turns_session_created;
CREATE INDEX IF NOT EXISTS idx_turns_session_created_number ON conversation_turns(session_id, created_at, turn_number);
