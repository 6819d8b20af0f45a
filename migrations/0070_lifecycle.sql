-- Lifecycle: small durable state (scheduled archive cursor, live-capture positions) and the
-- record of every conversation archive written, so a restart resumes where it stopped.

CREATE TABLE lifecycle_state (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL CHECK (json_valid(value)),
  updated_at INTEGER NOT NULL CHECK (updated_at >= 0)
) STRICT;

CREATE TABLE conversation_archives (
  id          TEXT PRIMARY KEY,
  file_name   TEXT NOT NULL,              -- relative to <workspace>/.openclaw-reflection/exports/ when scheduled
  kind        TEXT NOT NULL CHECK (kind IN ('scheduled', 'on_demand')),
  since       INTEGER,
  until       INTEGER,
  turns       INTEGER NOT NULL CHECK (turns >= 0),
  bytes       INTEGER NOT NULL CHECK (bytes >= 0),
  created_at  INTEGER NOT NULL CHECK (created_at >= 0)
) STRICT;
CREATE INDEX idx_conversation_archives_created ON conversation_archives(created_at);
