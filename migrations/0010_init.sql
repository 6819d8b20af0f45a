-- The recorded workspace: seed 000's schema made valid SQLite.
-- STRICT tables, CHECK constraints, foreign keys, and indexes as separate statements.
-- Tables that full-text search indexes (turns, decisions) carry an INTEGER PRIMARY KEY `seq`
-- so the FTS5 external-content rowid is stable across VACUUM; their ULID `id` is UNIQUE and
-- is what every foreign key points at.

CREATE TABLE sessions (
  id                  TEXT PRIMARY KEY,            -- canonical sessionKey, e.g. channel:discord:123
  channel_id          TEXT NOT NULL,
  conversation_target TEXT,
  account_id          TEXT,
  created_at          INTEGER NOT NULL CHECK (created_at >= 0),
  last_activity_at    INTEGER NOT NULL CHECK (last_activity_at >= created_at),
  metadata            TEXT CHECK (metadata IS NULL OR json_valid(metadata))
) STRICT;
CREATE INDEX idx_sessions_channel ON sessions(channel_id);
CREATE INDEX idx_sessions_activity ON sessions(last_activity_at);

CREATE TABLE conversation_turns (
  seq                   INTEGER PRIMARY KEY,
  id                    TEXT NOT NULL UNIQUE CHECK (length(id) > 0),
  session_id            TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  turn_number           INTEGER NOT NULL CHECK (turn_number >= 0),
  user_message_id       TEXT,
  user_message_content  TEXT NOT NULL,
  user_from             TEXT,
  user_metadata         TEXT CHECK (user_metadata IS NULL OR json_valid(user_metadata)),
  agent_message_id      TEXT,
  agent_message_content TEXT NOT NULL,
  agent_metadata        TEXT CHECK (agent_metadata IS NULL OR json_valid(agent_metadata)),
  created_at            INTEGER NOT NULL CHECK (created_at >= 0),
  UNIQUE (session_id, turn_number)
) STRICT;
CREATE INDEX idx_turns_created ON conversation_turns(created_at);
CREATE INDEX idx_turns_session_created ON conversation_turns(session_id, created_at);

CREATE TABLE conversation_contexts (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  turn_id         TEXT NOT NULL REFERENCES conversation_turns(id) ON DELETE CASCADE,
  role            TEXT NOT NULL CHECK (role IN ('user', 'agent')),
  message         TEXT NOT NULL,
  timestamp       INTEGER NOT NULL CHECK (timestamp >= 0),
  sequence_number INTEGER NOT NULL CHECK (sequence_number >= 0),
  UNIQUE (turn_id, sequence_number)
) STRICT;

CREATE TABLE memory_gate_decisions (
  seq               INTEGER PRIMARY KEY,
  id                TEXT NOT NULL UNIQUE CHECK (length(id) > 0),
  turn_id           TEXT NOT NULL REFERENCES conversation_turns(id) ON DELETE CASCADE,
  session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  decision          TEXT NOT NULL CHECK (decision IN (
                      'NO_WRITE', 'UPDATE_MEMORY', 'UPDATE_USER',
                      'UPDATE_SOUL', 'UPDATE_IDENTITY', 'UPDATE_TOOLS')),
  reason            TEXT NOT NULL,
  candidate_fact    TEXT,
  llm_model         TEXT NOT NULL,
  llm_latency_ms    INTEGER CHECK (llm_latency_ms IS NULL OR llm_latency_ms >= 0),
  prompt_tokens     INTEGER CHECK (prompt_tokens IS NULL OR prompt_tokens >= 0),
  completion_tokens INTEGER CHECK (completion_tokens IS NULL OR completion_tokens >= 0),
  raw_response      TEXT,
  -- where the row came from: the recorder (live plugin), an importer, the demo generator
  source            TEXT NOT NULL DEFAULT 'recorder',
  created_at        INTEGER NOT NULL CHECK (created_at >= 0)
) STRICT;
CREATE INDEX idx_decisions_session_time ON memory_gate_decisions(session_id, created_at);
CREATE INDEX idx_decisions_decision_time ON memory_gate_decisions(decision, created_at);
CREATE INDEX idx_decisions_turn ON memory_gate_decisions(turn_id);
CREATE INDEX idx_decisions_created ON memory_gate_decisions(created_at);

-- Seed 000 wants a materialized table; a view is always right and costs one indexed scan.
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

-- Snapshots are deduplicated by (file, SHA-256): identical content is stored once.
CREATE TABLE file_snapshots (
  id           TEXT PRIMARY KEY,
  file_name    TEXT NOT NULL CHECK (file_name IN ('MEMORY.md', 'USER.md', 'SOUL.md', 'IDENTITY.md', 'TOOLS.md')),
  content      TEXT NOT NULL,
  content_hash TEXT NOT NULL CHECK (length(content_hash) = 64),
  created_at   INTEGER NOT NULL CHECK (created_at >= 0),
  UNIQUE (file_name, content_hash)
) STRICT;
CREATE INDEX idx_snapshots_file_time ON file_snapshots(file_name, created_at);
CREATE INDEX idx_snapshots_hash ON file_snapshots(content_hash);

CREATE TABLE write_guardian_audit (
  id                 TEXT PRIMARY KEY,
  -- Null only for writes the plugin did not make through memory_gate (external edits, rollbacks, retries).
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
  -- plugin: write_guardian; external: a change nobody recorded; rollback / retry: the workbench's own writes
  source             TEXT NOT NULL DEFAULT 'plugin' CHECK (source IN ('plugin', 'external', 'rollback', 'retry')),
  related_audit_id   TEXT REFERENCES write_guardian_audit(id),  -- rollback: the undone audit; retry: the original
  metadata           TEXT CHECK (metadata IS NULL OR json_valid(metadata)),
  created_at         INTEGER NOT NULL CHECK (created_at >= 0),
  CHECK (source <> 'plugin' OR decision_id IS NOT NULL)
) STRICT;
CREATE INDEX idx_audit_session_time ON write_guardian_audit(session_id, created_at);
CREATE INDEX idx_audit_status_time ON write_guardian_audit(status, created_at);
CREATE INDEX idx_audit_file_time ON write_guardian_audit(target_file, created_at);
CREATE INDEX idx_audit_created ON write_guardian_audit(created_at);
CREATE INDEX idx_audit_decision ON write_guardian_audit(decision_id);
CREATE INDEX idx_audit_turn ON write_guardian_audit(turn_id);
CREATE INDEX idx_audit_before ON write_guardian_audit(before_snapshot_id);
CREATE INDEX idx_audit_after ON write_guardian_audit(after_snapshot_id);
CREATE INDEX idx_audit_related ON write_guardian_audit(related_audit_id);

CREATE TABLE rollbacks (
  id                   TEXT PRIMARY KEY,
  audit_id             TEXT NOT NULL UNIQUE REFERENCES write_guardian_audit(id),
  rolled_back_at       INTEGER NOT NULL CHECK (rolled_back_at >= 0),
  rolled_back_by       TEXT NOT NULL,
  reason               TEXT NOT NULL,
  -- null when the rollback deleted a file the write had created
  restored_snapshot_id TEXT REFERENCES file_snapshots(id),
  previous_status      TEXT NOT NULL,
  -- the file as it was just before the rollback, kept so a rollback is itself reversible
  backup_snapshot_id   TEXT REFERENCES file_snapshots(id),
  mode                 TEXT NOT NULL DEFAULT 'restore' CHECK (mode IN ('restore', 'reverse_patch', 'force')),
  rollback_audit_id    TEXT REFERENCES write_guardian_audit(id)  -- the audit that records the rollback's own write
) STRICT;
CREATE INDEX idx_rollbacks_at ON rollbacks(rolled_back_at);
CREATE INDEX idx_rollbacks_restored ON rollbacks(restored_snapshot_id);
CREATE INDEX idx_rollbacks_backup ON rollbacks(backup_snapshot_id);

CREATE TABLE behavior_corrections (
  id                       TEXT PRIMARY KEY,
  audit_id                 TEXT NOT NULL REFERENCES write_guardian_audit(id),
  original_status          TEXT NOT NULL,
  original_candidate_fact  TEXT,
  original_target_file     TEXT,
  corrected_status         TEXT NOT NULL CHECK (corrected_status IN ('written', 'refused')),
  corrected_candidate_fact TEXT,
  corrected_target_file    TEXT CHECK (corrected_target_file IS NULL OR corrected_target_file IN ('MEMORY.md', 'USER.md', 'SOUL.md', 'IDENTITY.md', 'TOOLS.md')),
  correction_reason        TEXT NOT NULL CHECK (length(trim(correction_reason)) > 0),
  apply_to_future          INTEGER NOT NULL DEFAULT 0 CHECK (apply_to_future IN (0, 1)),
  correction_pattern       TEXT,
  corrected_by             TEXT NOT NULL,
  corrected_at             INTEGER NOT NULL CHECK (corrected_at >= 0),
  retry_audit_id           TEXT REFERENCES write_guardian_audit(id)  -- the write that applied the correction, if any
) STRICT;
CREATE INDEX idx_corrections_audit ON behavior_corrections(audit_id);
CREATE INDEX idx_corrections_apply_to_future ON behavior_corrections(apply_to_future);
CREATE INDEX idx_corrections_at ON behavior_corrections(corrected_at);

CREATE TABLE dataset_samples (
  id                   TEXT PRIMARY KEY,
  sample_type          TEXT NOT NULL CHECK (sample_type IN (
                         'memory_gate_positive', 'memory_gate_negative',
                         'write_guardian_decision', 'annotated_turn')),
  turn_id              TEXT REFERENCES conversation_turns(id),
  decision_id          TEXT REFERENCES memory_gate_decisions(id),
  audit_id             TEXT REFERENCES write_guardian_audit(id),
  correction_id        TEXT REFERENCES behavior_corrections(id),
  session_id           TEXT NOT NULL REFERENCES sessions(id),
  content              TEXT NOT NULL CHECK (json_valid(content)),
  quality_score        REAL CHECK (quality_score IS NULL OR (quality_score >= 0 AND quality_score <= 1)),
  quality_factors      TEXT CHECK (quality_factors IS NULL OR json_valid(quality_factors)),
  annotation_status    TEXT NOT NULL DEFAULT 'pending' CHECK (annotation_status IN (
                         'pending', 'approved', 'rejected', 'needs_review', 'auto_approved')),
  annotated_by         TEXT,
  annotated_at         INTEGER,
  annotation_notes     TEXT,
  privacy_checked      INTEGER NOT NULL DEFAULT 0 CHECK (privacy_checked IN (0, 1)),
  contains_pii         INTEGER NOT NULL DEFAULT 0 CHECK (contains_pii IN (0, 1)),
  pii_redacted_content TEXT,
  pii_spans            TEXT CHECK (pii_spans IS NULL OR json_valid(pii_spans)),
  feedback_signals     TEXT CHECK (feedback_signals IS NULL OR json_valid(feedback_signals)),
  -- dedupe: SHA-256 of normalized content (exact) and the near-duplicate cluster it belongs to
  fingerprint          TEXT,
  cluster_id           TEXT,
  -- what produced the sample, unique so that collecting twice adds nothing
  source_key           TEXT NOT NULL UNIQUE,
  collection_strategy  TEXT,
  created_at           INTEGER NOT NULL CHECK (created_at >= 0)
) STRICT;
CREATE INDEX idx_samples_type_status ON dataset_samples(sample_type, annotation_status);
CREATE INDEX idx_samples_status_created ON dataset_samples(annotation_status, created_at);
CREATE INDEX idx_samples_quality ON dataset_samples(quality_score);
CREATE INDEX idx_samples_session ON dataset_samples(session_id);
CREATE INDEX idx_samples_created ON dataset_samples(created_at);
CREATE INDEX idx_samples_fingerprint ON dataset_samples(fingerprint);
CREATE INDEX idx_samples_cluster ON dataset_samples(cluster_id);
CREATE INDEX idx_samples_turn ON dataset_samples(turn_id);
CREATE INDEX idx_samples_decision ON dataset_samples(decision_id);
CREATE INDEX idx_samples_audit ON dataset_samples(audit_id);

CREATE TABLE dataset_exports (
  id                 TEXT PRIMARY KEY,
  export_name        TEXT NOT NULL,
  export_format      TEXT NOT NULL CHECK (export_format IN ('alpaca', 'sharegpt', 'openai', 'openai-dpo', 'raw', 'csv')),
  sample_types       TEXT NOT NULL CHECK (json_valid(sample_types)),
  filters            TEXT CHECK (filters IS NULL OR json_valid(filters)),
  total_samples      INTEGER,
  approved_samples   INTEGER,
  rejected_samples   INTEGER,
  train_samples      INTEGER,
  validation_samples INTEGER,
  avg_quality_score  REAL,
  include_pii        INTEGER NOT NULL DEFAULT 0 CHECK (include_pii IN (0, 1)),
  file_path          TEXT NOT NULL,
  file_size_bytes    INTEGER,
  checksum           TEXT,
  files              TEXT CHECK (files IS NULL OR json_valid(files)),  -- every file written, with size and SHA-256
  exported_by        TEXT,
  exported_at        INTEGER NOT NULL CHECK (exported_at >= 0)
) STRICT;
CREATE INDEX idx_exports_at ON dataset_exports(exported_at);

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
