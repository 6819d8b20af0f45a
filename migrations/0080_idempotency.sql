-- Browser mode: the outcome of every mutating call sent with an Idempotency-Key, so a retry (double
-- click, a dropped connection, the server restarted in between) gets the stored result and the action
-- does not run again. The row is written before the action runs (result NULL): a row still without a
-- result after a restart means the outcome is unknown, and the key is refused rather than run twice.
-- Rows expire after 24 h. IF NOT EXISTS: databases that reached a later version before this file existed
-- get the same table from the store itself.
CREATE TABLE IF NOT EXISTS api_idempotency (
  channel    TEXT NOT NULL,
  idem_key   TEXT NOT NULL CHECK (length(idem_key) BETWEEN 1 AND 200),
  body_hash  TEXT NOT NULL,              -- sha256 of the request body
  result     TEXT CHECK (result IS NULL OR json_valid(result)), -- the Result envelope; NULL while running
  created_at INTEGER NOT NULL CHECK (created_at >= 0),
  PRIMARY KEY (channel, idem_key)
) STRICT;
CREATE INDEX IF NOT EXISTS idx_api_idempotency_created ON api_idempotency(created_at);
