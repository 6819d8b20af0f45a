-- Memory health: the ordered version history of each memory file with a hash chain (tamper
-- evidence) and a persisted per-version line map (blame), the findings queue (contradictions,
-- duplicates, secrets), and erasure stubs.

-- One row per recorded version of a memory file, in history order (created_at, then audit rowid).
-- link = SHA-256 over (previous link, file, seq, audit id, content hash), so editing, removing or
-- reordering a version breaks every later link. line_map is filled lazily by blame: JSON runs
-- [producerSeq, indexAtProducer, count]; origins: JSON [lineIndex, indexInPreviousVersion] pairs for
-- the lines this version reworded or moved (their earlier history). audit_id is deliberately not a
-- foreign key: a deleted audit must show up in verify, not silently drop its version.
CREATE TABLE memory_versions (
  file_name    TEXT NOT NULL CHECK (file_name IN ('MEMORY.md', 'USER.md', 'SOUL.md', 'IDENTITY.md', 'TOOLS.md')),
  seq          INTEGER NOT NULL CHECK (seq >= 1),
  audit_id     TEXT NOT NULL UNIQUE,
  audit_rowid  INTEGER NOT NULL,
  content_hash TEXT CHECK (content_hash IS NULL OR length(content_hash) = 64),  -- null: file absent
  prev_link    TEXT NOT NULL,
  link         TEXT NOT NULL CHECK (length(link) = 64),
  line_map     TEXT,
  origins      TEXT,
  created_at   INTEGER NOT NULL CHECK (created_at >= 0),
  PRIMARY KEY (file_name, seq)
) STRICT;
CREATE INDEX idx_memory_versions_order ON memory_versions(file_name, created_at, audit_rowid);

-- Every time a chain was rewritten on purpose (an erasure, an earlier write recorded late): verify
-- lists these so a re-chain is visible and checkable, never silent.
CREATE TABLE memory_chain_events (
  id           TEXT PRIMARY KEY,
  file_name    TEXT NOT NULL,
  from_seq     INTEGER NOT NULL,
  reason       TEXT NOT NULL,
  erasure_id   TEXT,
  old_head     TEXT,
  new_head     TEXT,
  created_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX idx_memory_chain_events_file ON memory_chain_events(file_name, created_at);

-- Findings about the current memory: contradictions, duplicates and secrets, one queue.
-- key identifies the finding (kind + files + normalised lines) so a re-scan never duplicates it.
CREATE TABLE health_findings (
  id           TEXT PRIMARY KEY,
  key          TEXT NOT NULL UNIQUE,
  kind         TEXT NOT NULL CHECK (kind IN ('contradiction', 'duplicate', 'secret')),
  attribute    TEXT,
  detail       TEXT NOT NULL CHECK (json_valid(detail)),  -- the lines involved, with files and values
  status       TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'merged', 'dismissed')),
  resolution   TEXT CHECK (resolution IS NULL OR json_valid(resolution)),
  resolved_by  TEXT,
  resolved_at  INTEGER,
  created_at   INTEGER NOT NULL CHECK (created_at >= 0)
) STRICT;
CREATE INDEX idx_health_findings_status ON health_findings(status, created_at);

-- Writes whose content put a secret or personal data into memory, found as they arrive.
CREATE TABLE audit_secret_flags (
  audit_id   TEXT PRIMARY KEY,
  kinds      TEXT NOT NULL CHECK (json_valid(kinds)),   -- detector kinds, never the values
  count      INTEGER NOT NULL CHECK (count > 0),
  scanned_at INTEGER NOT NULL
) STRICT;

-- That an erasure happened: when, by whom, where, and a salted hash of the value (never the value).
CREATE TABLE erasures (
  id          TEXT PRIMARY KEY,
  value_hash  TEXT NOT NULL,
  salt        TEXT NOT NULL,
  erased_by   TEXT NOT NULL,
  erased_at   INTEGER NOT NULL CHECK (erased_at >= 0),
  summary     TEXT NOT NULL CHECK (json_valid(summary))  -- counts per place
) STRICT;
