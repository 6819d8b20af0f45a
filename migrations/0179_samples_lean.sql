-- migrate: foreign-keys-off
-- Issue 16: a sample row cost about 149,000 instructions to insert (callgrind, inside sqlite3_step,
-- 10,000 rows of a collected bench workspace), ten times a primary-key-only table's 13,500. Two kinds
-- of CHECK were 56,000 of them, and neither catches anything the app can write:
-- - `x IN ('a', 'b', 'c', ...)` with more than two constants makes SQLite build an ephemeral index of
--   the list each time the statement runs, so once per inserted row (EXPLAIN shows OpenEphemeral):
--   41,000 instructions for the two lists. `x = 'a' OR x = 'b' ...` compares in place and accepts and
--   refuses exactly the same values (NULL included: both give NULL, which a CHECK lets through).
-- - CHECK (json_valid(...)) parsed every content, label and factor text in full on each insert
--   (14,600 instructions). The app writes these columns only from JSON.stringify (collection, review
--   edits, dedupe labels, PII decisions, eval gold samples) or restores values it stored;
--   tests/db/migration-0179-samples-lean.test.ts checks that its writes stay valid JSON.
-- After: 93,500. SQLite cannot change a CHECK, so the table is rebuilt the documented way (see 0160):
-- new table, copy with the rowids (exports and cluster lists page by rowid), drop, rename, then the
-- same indexes in the same order and the view. Foreign keys, the unique source key and every index stay.
DROP VIEW IF EXISTS pending_review_samples;

CREATE TABLE dataset_samples_new (
  id                   TEXT PRIMARY KEY,
  sample_type          TEXT NOT NULL CHECK (sample_type = 'memory_gate_positive' OR sample_type = 'memory_gate_negative'
                         OR sample_type = 'write_guardian_decision' OR sample_type = 'annotated_turn'),
  turn_id              TEXT REFERENCES conversation_turns(id),
  decision_id          TEXT REFERENCES memory_gate_decisions(id),
  audit_id             TEXT REFERENCES write_guardian_audit(id),
  correction_id        TEXT REFERENCES behavior_corrections(id),
  session_id           TEXT NOT NULL REFERENCES sessions(id),
  -- JSON text from JSON.stringify, not parsed on insert (see above)
  content              TEXT NOT NULL,
  quality_score        REAL CHECK (quality_score IS NULL OR (quality_score >= 0 AND quality_score <= 1)),
  quality_factors      TEXT,
  annotation_status    TEXT NOT NULL DEFAULT 'pending' CHECK (annotation_status = 'pending' OR annotation_status = 'approved'
                         OR annotation_status = 'rejected' OR annotation_status = 'needs_review'
                         OR annotation_status = 'auto_approved'),
  annotated_by         TEXT,
  annotated_at         INTEGER,
  annotation_notes     TEXT,
  privacy_checked      INTEGER NOT NULL DEFAULT 0 CHECK (privacy_checked IN (0, 1)),
  contains_pii         INTEGER NOT NULL DEFAULT 0 CHECK (contains_pii IN (0, 1)),
  pii_redacted_content TEXT,
  pii_spans            TEXT,
  feedback_signals     TEXT,
  -- dedupe: SHA-256 of normalized content (exact) and the near-duplicate cluster it belongs to
  fingerprint          TEXT,
  cluster_id           TEXT,
  -- what produced the sample, unique so that collecting twice adds nothing
  source_key           TEXT NOT NULL UNIQUE,
  collection_strategy  TEXT,
  created_at           INTEGER NOT NULL CHECK (created_at >= 0),
  labels               TEXT,
  reject_reason        TEXT
) STRICT;

INSERT INTO dataset_samples_new (rowid, id, sample_type, turn_id, decision_id, audit_id, correction_id, session_id, content,
    quality_score, quality_factors, annotation_status, annotated_by, annotated_at, annotation_notes, privacy_checked,
    contains_pii, pii_redacted_content, pii_spans, feedback_signals, fingerprint, cluster_id, source_key,
    collection_strategy, created_at, labels, reject_reason)
  SELECT rowid, id, sample_type, turn_id, decision_id, audit_id, correction_id, session_id, content,
    quality_score, quality_factors, annotation_status, annotated_by, annotated_at, annotation_notes, privacy_checked,
    contains_pii, pii_redacted_content, pii_spans, feedback_signals, fingerprint, cluster_id, source_key,
    collection_strategy, created_at, labels, reject_reason
  FROM dataset_samples ORDER BY rowid;

DROP TABLE dataset_samples;
ALTER TABLE dataset_samples_new RENAME TO dataset_samples;

CREATE INDEX idx_samples_type_status ON dataset_samples(sample_type, annotation_status);
CREATE INDEX idx_samples_status_created ON dataset_samples(annotation_status, created_at);
CREATE INDEX idx_samples_quality ON dataset_samples(quality_score);
CREATE INDEX idx_samples_session ON dataset_samples(session_id);
CREATE INDEX idx_samples_created ON dataset_samples(created_at);
CREATE INDEX idx_samples_turn ON dataset_samples(turn_id);
CREATE INDEX idx_samples_decision ON dataset_samples(decision_id);
CREATE INDEX idx_samples_audit ON dataset_samples(audit_id);
CREATE INDEX idx_samples_type_created ON dataset_samples(sample_type, created_at);
CREATE INDEX idx_samples_correction ON dataset_samples(correction_id);
CREATE INDEX idx_samples_fingerprint_cluster ON dataset_samples(fingerprint, sample_type, cluster_id, id);
CREATE INDEX idx_samples_cluster_filters ON dataset_samples(cluster_id, sample_type, annotation_status, quality_score, session_id, correction_id);
CREATE INDEX idx_samples_session_spans ON dataset_samples(session_id) WHERE pii_spans IS NOT NULL;

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
