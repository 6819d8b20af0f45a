-- Importers: where each source file was read up to, what each run did, and how foreign session keys
-- map onto ours. Re-running an import reads only what is new (cursor per file); the rows it writes
-- carry IDs derived from the source, so reading a line twice never adds a row twice.

-- One row per source file per importer. A file is recognized by its head (SHA-256 of its first
-- head_length bytes): a different head or a size below byte_offset means it was truncated or
-- replaced, and it is read again from the start.
CREATE TABLE import_cursors (
  importer     TEXT NOT NULL CHECK (importer IN ('reflection-logs', 'guardian-log', 'openclaw', 'evals')),
  source_path  TEXT NOT NULL,
  file_size    INTEGER NOT NULL CHECK (file_size >= 0),
  file_inode   TEXT,
  head_hash    TEXT,
  head_length  INTEGER NOT NULL DEFAULT 0 CHECK (head_length >= 0),
  byte_offset  INTEGER NOT NULL CHECK (byte_offset >= 0),
  line_number  INTEGER NOT NULL CHECK (line_number >= 0),
  -- what the importer must remember to continue this file (open turn, rolling context, ...)
  state        TEXT CHECK (state IS NULL OR json_valid(state)),
  updated_at   INTEGER NOT NULL CHECK (updated_at >= 0),
  PRIMARY KEY (importer, source_path)
) STRICT;

-- State that spans files (the plugin's logs roll daily, its buffers and configuration do not).
CREATE TABLE import_state (
  scope      TEXT PRIMARY KEY,
  state      TEXT NOT NULL CHECK (json_valid(state)),
  updated_at INTEGER NOT NULL CHECK (updated_at >= 0)
) STRICT;

CREATE TABLE import_runs (
  id            TEXT PRIMARY KEY,
  importer      TEXT NOT NULL,
  source        TEXT NOT NULL,
  started_at    INTEGER NOT NULL CHECK (started_at >= 0),
  finished_at   INTEGER NOT NULL CHECK (finished_at >= started_at),
  status        TEXT NOT NULL CHECK (status IN ('ok', 'partial', 'nothing_new', 'failed')),
  inserted      TEXT NOT NULL CHECK (json_valid(inserted)),
  skipped_count INTEGER NOT NULL DEFAULT 0 CHECK (skipped_count >= 0),
  report        TEXT NOT NULL CHECK (json_valid(report))
) STRICT;
CREATE INDEX idx_import_runs_started ON import_runs(started_at);

-- The canonicalization mapping: an OpenClaw session key (agent:main:discord:channel:1) and the
-- plugin's channel-scoped key (channel:discord:channel:1) name the same session.
CREATE TABLE session_aliases (
  alias      TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  source     TEXT NOT NULL,
  created_at INTEGER NOT NULL CHECK (created_at >= 0)
) STRICT;
CREATE INDEX idx_session_aliases_session ON session_aliases(session_id);

-- Lines of the plugin's write-guardian.log.jsonl, the only place that holds a write's candidate fact.
-- Each is joined at most once to the audit its MessageHandler line produces (audit_id).
CREATE TABLE guardian_log_lines (
  id             TEXT PRIMARY KEY,
  at             INTEGER NOT NULL CHECK (at >= 0),
  decision       TEXT NOT NULL,
  status         TEXT NOT NULL,
  target_file    TEXT,
  reason         TEXT,
  candidate_fact TEXT,
  source_file    TEXT NOT NULL,
  line_number    INTEGER NOT NULL,
  audit_id       TEXT
) STRICT;
CREATE INDEX idx_guardian_log_lines_match ON guardian_log_lines(decision, status, at);
