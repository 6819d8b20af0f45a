-- Opt-out: a session, a channel target or an account can be excluded. Excluded data is never
-- collected into samples and never exported. Everything that collects or exports filters on
-- the excluded_sessions view, so adding a kind of exclusion changes one place.
CREATE TABLE exclusions (
  id         TEXT PRIMARY KEY,
  kind       TEXT NOT NULL CHECK (kind IN ('session', 'target', 'account')),
  -- session: the session key; target: "<channel_id>:<conversation_target>"; account: the account id
  value      TEXT NOT NULL CHECK (length(value) > 0),
  reason     TEXT,
  created_by TEXT,
  created_at INTEGER NOT NULL CHECK (created_at >= 0),
  UNIQUE (kind, value)
) STRICT;

CREATE VIEW excluded_sessions AS
SELECT s.id AS session_id
FROM sessions s
WHERE EXISTS (SELECT 1 FROM exclusions e WHERE e.kind = 'session' AND e.value = s.id)
   OR EXISTS (SELECT 1 FROM exclusions e WHERE e.kind = 'target' AND e.value = s.channel_id || ':' || coalesce(s.conversation_target, ''))
   OR EXISTS (SELECT 1 FROM exclusions e WHERE e.kind = 'account' AND e.value = s.account_id);
