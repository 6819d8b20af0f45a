-- The memory-management plugin's fact store (.openclaw-reflection/memory-management-store.json):
-- the only place a managed fact is tied to the session and message it came from. Imported as is,
-- and joined to the plugin write that established it.
CREATE TABLE managed_facts (
  id                TEXT PRIMARY KEY,          -- the plugin's fact id (fact_<ulid>)
  file_name         TEXT NOT NULL CHECK (file_name IN ('MEMORY.md', 'USER.md', 'SOUL.md', 'IDENTITY.md', 'TOOLS.md')),
  text              TEXT NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('active', 'deleted')),
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  session_key       TEXT,
  source_message_id TEXT,
  decision          TEXT,
  reason            TEXT,
  recorded_at       INTEGER,
  audit_id          TEXT REFERENCES write_guardian_audit(id) ON DELETE SET NULL,
  turn_id           TEXT REFERENCES conversation_turns(id) ON DELETE SET NULL,
  imported_at       INTEGER NOT NULL
) STRICT;
CREATE INDEX idx_managed_facts_file ON managed_facts(file_name, status);
CREATE INDEX idx_managed_facts_audit ON managed_facts(audit_id);
CREATE INDEX idx_managed_facts_turn ON managed_facts(turn_id);

CREATE TABLE managed_fact_events (
  id          TEXT PRIMARY KEY,                -- the plugin's event id (factevt_<ulid>)
  fact_id     TEXT NOT NULL,
  type        TEXT NOT NULL,                   -- established | edited | moved | deleted
  file_name   TEXT,
  text        TEXT,
  proposal_id TEXT,
  at          INTEGER NOT NULL
) STRICT;
CREATE INDEX idx_managed_fact_events_fact ON managed_fact_events(fact_id, at);
