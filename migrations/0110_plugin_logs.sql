-- Plugin logs, faithfully: gate runs that produced no decision, what became of a decision when the
-- plugin could not write, consolidation runs, and which log lines were already read.

-- A memory_gate run that judged a reply but produced no decision: the LLM request failed (the plugin
-- then logs NO_WRITE, which is not a judgement), the run threw, or the plugin restarted before the
-- queued run started. Kept apart from memory_gate_decisions so stats and datasets never see them.
CREATE TABLE memory_gate_failures (
  id          TEXT PRIMARY KEY CHECK (length(id) > 0),
  turn_id     TEXT REFERENCES conversation_turns(id) ON DELETE CASCADE,
  session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  kind        TEXT NOT NULL CHECK (kind IN ('llm_request_failed', 'trigger_failed', 'lost_in_restart')),
  reason      TEXT,
  source      TEXT NOT NULL,
  created_at  INTEGER NOT NULL CHECK (created_at >= 0)
) STRICT;
CREATE INDEX idx_gate_failures_turn ON memory_gate_failures(turn_id);
CREATE INDEX idx_gate_failures_session_time ON memory_gate_failures(session_id, created_at);

-- What happened after an UPDATE_* decision when no write was attempted. NULL: see the audits.
-- 'guardian_unavailable': write_guardian was not running (no workspace), the update was dropped.
ALTER TABLE memory_gate_decisions ADD COLUMN outcome TEXT;

-- Lines of plugin logs already applied, by a hash of the line: a copied or renamed log (or a
-- file read again from the start) replays nothing.
CREATE TABLE plugin_log_events (
  id TEXT PRIMARY KEY
) STRICT, WITHOUT ROWID;

-- "Consolidation cleanup completed {updatedFiles}": the files the plugin's scheduled consolidation
-- rewrote right after this line. Their changes are claimed from the external writes.
CREATE TABLE consolidation_runs (
  id          TEXT PRIMARY KEY,
  at          INTEGER NOT NULL CHECK (at >= 0),
  files       TEXT NOT NULL CHECK (json_valid(files)),
  source_file TEXT,
  claimed     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(claimed))
) STRICT;
CREATE INDEX idx_consolidation_runs_at ON consolidation_runs(at);
