-- migrate: foreign-keys-off
-- The plugin's scheduled consolidation rewrites memory files; those writes get their own source,
-- 'consolidation', instead of passing as anonymous external edits. SQLite cannot alter a CHECK, so
-- the table is rebuilt the documented way (the marker above runs this migration with foreign keys
-- off and a foreign_key_check before commit): new table, copy, drop, rename, then its indexes,
-- triggers and the view that reads it again.
DROP VIEW IF EXISTS pending_review_samples;
DROP TRIGGER IF EXISTS trg_audit_moves_file_state;
DROP TRIGGER IF EXISTS trg_health_audit_deleted;

CREATE TABLE write_guardian_audit_new (
  id                 TEXT PRIMARY KEY,
  -- Null only for writes the plugin did not make through memory_gate (external edits, rollbacks, retries, consolidation).
  decision_id        TEXT REFERENCES memory_gate_decisions(id) ON DELETE CASCADE,
  turn_id            TEXT REFERENCES conversation_turns(id) ON DELETE CASCADE,
  session_id         TEXT REFERENCES sessions(id) ON DELETE CASCADE,
  target_file        TEXT NOT NULL CHECK (target_file IN ('MEMORY.md', 'USER.md', 'SOUL.md', 'IDENTITY.md', 'TOOLS.md')),
  candidate_fact     TEXT,
  before_snapshot_id TEXT REFERENCES file_snapshots(id),   -- null: the file did not exist (or is unknown)
  after_snapshot_id  TEXT REFERENCES file_snapshots(id),   -- null: the file was deleted (or is unknown)
  diff               TEXT,
  lines_added        INTEGER CHECK (lines_added IS NULL OR lines_added >= 0),
  lines_removed      INTEGER CHECK (lines_removed IS NULL OR lines_removed >= 0),
  lines_modified     INTEGER CHECK (lines_modified IS NULL OR lines_modified >= 0),
  status             TEXT NOT NULL CHECK (status IN ('written', 'refused', 'failed', 'skipped', 'rolled_back')),
  reason             TEXT,
  llm_model          TEXT,
  llm_latency_ms     INTEGER CHECK (llm_latency_ms IS NULL OR llm_latency_ms >= 0),
  agent_steps        INTEGER CHECK (agent_steps IS NULL OR agent_steps >= 0),
  -- plugin: write_guardian; external: a change nobody recorded; rollback / retry: the workbench's own
  -- writes; consolidation: the plugin's scheduled rewrite named by a "Consolidation cleanup" log line
  source             TEXT NOT NULL DEFAULT 'plugin' CHECK (source IN ('plugin', 'external', 'rollback', 'retry', 'consolidation')),
  related_audit_id   TEXT REFERENCES write_guardian_audit(id),  -- rollback: the undone audit; retry: the original
  metadata           TEXT CHECK (metadata IS NULL OR json_valid(metadata)),
  created_at         INTEGER NOT NULL CHECK (created_at >= 0),
  CHECK (source <> 'plugin' OR decision_id IS NOT NULL)
) STRICT;

INSERT INTO write_guardian_audit_new
SELECT id, decision_id, turn_id, session_id, target_file, candidate_fact, before_snapshot_id, after_snapshot_id, diff,
       lines_added, lines_removed, lines_modified, status, reason, llm_model, llm_latency_ms, agent_steps,
       CASE WHEN source = 'external' AND json_extract(coalesce(metadata, '{}'), '$.origin') = 'consolidation' THEN 'consolidation' ELSE source END,
       related_audit_id, metadata, created_at
FROM write_guardian_audit;

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
