-- migrate: foreign-keys-off
-- Issue 16: the rows the recorder and the log importers write per decision and per write paid for
-- their `x IN ('a', 'b', 'c', ...)` CHECKs the way dataset_samples did (see 0179): SQLite builds an
-- ephemeral index of each list every time the INSERT runs, once per row (EXPLAIN shows OpenEphemeral),
-- about 20,000 instructions per list. `x = 'a' OR x = 'b' ...` compares in place and accepts and refuses
-- the same values (NULL included: both give NULL, which a CHECK lets through).
-- callgrind, instructions inside sqlite3VdbeExec per inserted row, 3,000 rows each, before -> after:
--   write_guardian_audit (three lists, and file_state's through its trigger on written rows) 130,900 -> 58,800
--   file_snapshots 41,800 -> 21,300;  memory_versions 38,600 -> 18,300;
--   memory_gate_decisions 309,400 -> 286,800 (its trigram index is most of the rest).
-- A recorded turn writes one decision and, in the demo workspace, half an audit and a quarter of a
-- snapshot and of a version: about 67,000 instructions less per turn.
-- The json_valid CHECK on audit metadata stays as it was.
-- SQLite cannot change a CHECK, so each table is rebuilt the documented way (see 0160, 0179): new
-- table, copy with the rowids (decisions_fts is keyed by decisions' seq, memory_versions keeps the audit
-- rowid it chains on), drop, rename, then the same indexes in the same order; the triggers and the views
-- that read these tables are dropped first and created again as they were.
DROP VIEW IF EXISTS pending_review_samples;
DROP VIEW IF EXISTS memory_gate_stats;
DROP TRIGGER IF EXISTS decisions_fts_ai;
DROP TRIGGER IF EXISTS decisions_fts_ad;
DROP TRIGGER IF EXISTS decisions_fts_au;
DROP TRIGGER IF EXISTS trg_audit_moves_file_state;
DROP TRIGGER IF EXISTS trg_health_audit_deleted;

CREATE TABLE memory_gate_decisions_new (
  seq               INTEGER PRIMARY KEY,
  id                TEXT NOT NULL UNIQUE CHECK (length(id) > 0),
  turn_id           TEXT NOT NULL REFERENCES conversation_turns(id) ON DELETE CASCADE,
  session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  decision          TEXT NOT NULL CHECK (decision = 'NO_WRITE' OR decision = 'UPDATE_MEMORY' OR decision = 'UPDATE_USER'
                      OR decision = 'UPDATE_SOUL' OR decision = 'UPDATE_IDENTITY' OR decision = 'UPDATE_TOOLS'),
  reason            TEXT NOT NULL,
  candidate_fact    TEXT,
  llm_model         TEXT NOT NULL,
  llm_latency_ms    INTEGER CHECK (llm_latency_ms IS NULL OR llm_latency_ms >= 0),
  prompt_tokens     INTEGER CHECK (prompt_tokens IS NULL OR prompt_tokens >= 0),
  completion_tokens INTEGER CHECK (completion_tokens IS NULL OR completion_tokens >= 0),
  raw_response      TEXT,
  -- where the row came from: the recorder (live plugin), an importer, the demo generator
  source            TEXT NOT NULL DEFAULT 'recorder',
  created_at        INTEGER NOT NULL CHECK (created_at >= 0),
  outcome           TEXT
) STRICT;

INSERT INTO memory_gate_decisions_new (seq, id, turn_id, session_id, decision, reason, candidate_fact, llm_model, llm_latency_ms,
    prompt_tokens, completion_tokens, raw_response, source, created_at, outcome)
  SELECT seq, id, turn_id, session_id, decision, reason, candidate_fact, llm_model, llm_latency_ms,
    prompt_tokens, completion_tokens, raw_response, source, created_at, outcome
  FROM memory_gate_decisions ORDER BY seq;

DROP TABLE memory_gate_decisions;
ALTER TABLE memory_gate_decisions_new RENAME TO memory_gate_decisions;

CREATE INDEX idx_decisions_session_time ON memory_gate_decisions(session_id, created_at);
CREATE INDEX idx_decisions_decision_time ON memory_gate_decisions(decision, created_at);
CREATE INDEX idx_decisions_turn ON memory_gate_decisions(turn_id);
CREATE INDEX idx_decisions_created ON memory_gate_decisions(created_at);

CREATE TABLE file_snapshots_new (
  id           TEXT PRIMARY KEY,
  file_name    TEXT NOT NULL CHECK (file_name = 'MEMORY.md' OR file_name = 'USER.md' OR file_name = 'SOUL.md'
                 OR file_name = 'IDENTITY.md' OR file_name = 'TOOLS.md'),
  content      TEXT NOT NULL,
  content_hash TEXT NOT NULL CHECK (length(content_hash) = 64),
  created_at   INTEGER NOT NULL CHECK (created_at >= 0),
  UNIQUE (file_name, content_hash)
) STRICT;

INSERT INTO file_snapshots_new (rowid, id, file_name, content, content_hash, created_at)
  SELECT rowid, id, file_name, content, content_hash, created_at FROM file_snapshots ORDER BY rowid;

DROP TABLE file_snapshots;
ALTER TABLE file_snapshots_new RENAME TO file_snapshots;

CREATE INDEX idx_snapshots_file_time ON file_snapshots(file_name, created_at);
CREATE INDEX idx_snapshots_hash ON file_snapshots(content_hash);

CREATE TABLE file_state_new (
  file_name    TEXT PRIMARY KEY CHECK (file_name = 'MEMORY.md' OR file_name = 'USER.md' OR file_name = 'SOUL.md'
                 OR file_name = 'IDENTITY.md' OR file_name = 'TOOLS.md'),
  snapshot_id  TEXT REFERENCES file_snapshots(id),   -- null: the file was absent
  content_hash TEXT CHECK (content_hash IS NULL OR length(content_hash) = 64),
  audit_id     TEXT REFERENCES write_guardian_audit(id) ON DELETE SET NULL,  -- the audit that produced it, if any
  observed_at  INTEGER NOT NULL CHECK (observed_at >= 0),
  CHECK ((snapshot_id IS NULL) = (content_hash IS NULL))
) STRICT;

INSERT INTO file_state_new (rowid, file_name, snapshot_id, content_hash, audit_id, observed_at)
  SELECT rowid, file_name, snapshot_id, content_hash, audit_id, observed_at FROM file_state ORDER BY rowid;

DROP TABLE file_state;
ALTER TABLE file_state_new RENAME TO file_state;

CREATE INDEX idx_file_state_snapshot ON file_state(snapshot_id);

CREATE TABLE memory_versions_new (
  file_name    TEXT NOT NULL CHECK (file_name = 'MEMORY.md' OR file_name = 'USER.md' OR file_name = 'SOUL.md'
                 OR file_name = 'IDENTITY.md' OR file_name = 'TOOLS.md'),
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

INSERT INTO memory_versions_new (rowid, file_name, seq, audit_id, audit_rowid, content_hash, prev_link, link, line_map, origins, created_at)
  SELECT rowid, file_name, seq, audit_id, audit_rowid, content_hash, prev_link, link, line_map, origins, created_at
  FROM memory_versions ORDER BY rowid;

DROP TABLE memory_versions;
ALTER TABLE memory_versions_new RENAME TO memory_versions;

CREATE INDEX idx_memory_versions_order ON memory_versions(file_name, created_at, audit_rowid);

CREATE TABLE write_guardian_audit_new (
  id                 TEXT PRIMARY KEY,
  -- Null only for writes the plugin did not make through memory_gate (external edits, rollbacks, retries, consolidation).
  decision_id        TEXT REFERENCES memory_gate_decisions(id) ON DELETE CASCADE,
  turn_id            TEXT REFERENCES conversation_turns(id) ON DELETE CASCADE,
  session_id         TEXT REFERENCES sessions(id) ON DELETE CASCADE,
  target_file        TEXT NOT NULL CHECK (target_file = 'MEMORY.md' OR target_file = 'USER.md' OR target_file = 'SOUL.md'
                       OR target_file = 'IDENTITY.md' OR target_file = 'TOOLS.md'),
  candidate_fact     TEXT,
  before_snapshot_id TEXT REFERENCES file_snapshots(id),   -- null: the file did not exist (or is unknown)
  after_snapshot_id  TEXT REFERENCES file_snapshots(id),   -- null: the file was deleted (or is unknown)
  diff               TEXT,
  lines_added        INTEGER CHECK (lines_added IS NULL OR lines_added >= 0),
  lines_removed      INTEGER CHECK (lines_removed IS NULL OR lines_removed >= 0),
  lines_modified     INTEGER CHECK (lines_modified IS NULL OR lines_modified >= 0),
  status             TEXT NOT NULL CHECK (status = 'written' OR status = 'refused' OR status = 'failed' OR status = 'skipped'
                       OR status = 'rolled_back'),
  reason             TEXT,
  llm_model          TEXT,
  llm_latency_ms     INTEGER CHECK (llm_latency_ms IS NULL OR llm_latency_ms >= 0),
  agent_steps        INTEGER CHECK (agent_steps IS NULL OR agent_steps >= 0),
  -- plugin: write_guardian; external: a change nobody recorded; rollback / retry: the workbench's own
  -- writes; consolidation: the plugin's scheduled rewrite named by a "Consolidation cleanup" log line
  source             TEXT NOT NULL DEFAULT 'plugin' CHECK (source = 'plugin' OR source = 'external' OR source = 'rollback'
                       OR source = 'retry' OR source = 'consolidation'),
  related_audit_id   TEXT REFERENCES write_guardian_audit(id),  -- rollback: the undone audit; retry: the original
  metadata           TEXT CHECK (metadata IS NULL OR json_valid(metadata)),
  created_at         INTEGER NOT NULL CHECK (created_at >= 0),
  CHECK (source <> 'plugin' OR decision_id IS NOT NULL)
) STRICT;

INSERT INTO write_guardian_audit_new (rowid, id, decision_id, turn_id, session_id, target_file, candidate_fact, before_snapshot_id,
    after_snapshot_id, diff, lines_added, lines_removed, lines_modified, status, reason, llm_model, llm_latency_ms, agent_steps,
    source, related_audit_id, metadata, created_at)
  SELECT rowid, id, decision_id, turn_id, session_id, target_file, candidate_fact, before_snapshot_id,
    after_snapshot_id, diff, lines_added, lines_removed, lines_modified, status, reason, llm_model, llm_latency_ms, agent_steps,
    source, related_audit_id, metadata, created_at
  FROM write_guardian_audit ORDER BY rowid;

DROP TABLE write_guardian_audit;
ALTER TABLE write_guardian_audit_new RENAME TO write_guardian_audit;

CREATE INDEX idx_audit_session_time ON write_guardian_audit(session_id, created_at);
CREATE INDEX idx_audit_status_time ON write_guardian_audit(status, created_at);
CREATE INDEX idx_audit_file_time ON write_guardian_audit(target_file, created_at);
CREATE INDEX idx_audit_created ON write_guardian_audit(created_at);
CREATE INDEX idx_audit_decision ON write_guardian_audit(decision_id);
CREATE INDEX idx_audit_turn ON write_guardian_audit(turn_id);
CREATE INDEX idx_audit_before ON write_guardian_audit(before_snapshot_id);
CREATE INDEX idx_audit_after ON write_guardian_audit(after_snapshot_id);
CREATE INDEX idx_audit_related ON write_guardian_audit(related_audit_id);

CREATE TRIGGER decisions_fts_ai AFTER INSERT ON memory_gate_decisions BEGIN
  INSERT INTO decisions_fts(rowid, reason, candidate_fact) VALUES (new.seq, new.reason, new.candidate_fact);
END;

CREATE TRIGGER decisions_fts_ad AFTER DELETE ON memory_gate_decisions BEGIN
  INSERT INTO decisions_fts(decisions_fts, rowid, reason, candidate_fact)
  VALUES ('delete', old.seq, old.reason, old.candidate_fact);
END;

CREATE TRIGGER decisions_fts_au AFTER UPDATE OF reason, candidate_fact ON memory_gate_decisions BEGIN
  INSERT INTO decisions_fts(decisions_fts, rowid, reason, candidate_fact)
  VALUES ('delete', old.seq, old.reason, old.candidate_fact);
  INSERT INTO decisions_fts(rowid, reason, candidate_fact) VALUES (new.seq, new.reason, new.candidate_fact);
END;

CREATE TRIGGER trg_audit_moves_file_state AFTER INSERT ON write_guardian_audit
WHEN NEW.status = 'written' AND (NEW.after_snapshot_id IS NOT NULL OR NEW.diff IS NOT NULL)
BEGIN
  INSERT INTO file_state (file_name, snapshot_id, content_hash, audit_id, observed_at)
  VALUES (
    NEW.target_file,
    NEW.after_snapshot_id,
    (SELECT content_hash FROM file_snapshots WHERE id = NEW.after_snapshot_id),
    NEW.id,
    NEW.created_at
  )
  ON CONFLICT (file_name) DO UPDATE SET
    snapshot_id = excluded.snapshot_id,
    content_hash = excluded.content_hash,
    audit_id = excluded.audit_id,
    observed_at = excluded.observed_at
  WHERE excluded.observed_at >= file_state.observed_at;
END;

CREATE TRIGGER trg_health_audit_deleted AFTER DELETE ON write_guardian_audit
WHEN EXISTS (SELECT 1 FROM memory_versions WHERE audit_id = OLD.id)
BEGIN
  INSERT OR IGNORE INTO memory_chain_events (id, file_name, from_seq, reason, erasure_id, old_head, new_head, created_at)
  SELECT 'deleted:' || OLD.id, file_name, seq, 'the write of this version was deleted (retention, a purge, or by hand)', NULL, NULL, NULL,
         CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
  FROM memory_versions WHERE audit_id = OLD.id;
END;

CREATE VIEW memory_gate_stats AS
SELECT
  date(created_at / 1000, 'unixepoch')   AS date,
  COUNT(DISTINCT session_id)             AS session_count,
  COUNT(*)                               AS total_decisions,
  SUM(decision = 'NO_WRITE')             AS no_write_count,
  SUM(decision = 'UPDATE_MEMORY')        AS update_memory_count,
  SUM(decision = 'UPDATE_USER')          AS update_user_count,
  SUM(decision = 'UPDATE_SOUL')          AS update_soul_count,
  SUM(decision = 'UPDATE_IDENTITY')      AS update_identity_count,
  SUM(decision = 'UPDATE_TOOLS')         AS update_tools_count,
  CAST(AVG(llm_latency_ms) AS INTEGER)   AS avg_latency_ms,
  MAX(created_at)                        AS updated_at
FROM memory_gate_decisions
GROUP BY 1;

CREATE VIEW pending_review_samples AS
SELECT
  s.*,
  t.user_message_content,
  t.agent_message_content,
  d.decision AS memory_gate_decision,
  a.status   AS write_guardian_status
FROM dataset_samples s
LEFT JOIN conversation_turns t ON s.turn_id = t.id
LEFT JOIN memory_gate_decisions d ON s.decision_id = d.id
LEFT JOIN write_guardian_audit a ON s.audit_id = a.id
WHERE s.annotation_status = 'needs_review'
ORDER BY s.quality_score DESC;
