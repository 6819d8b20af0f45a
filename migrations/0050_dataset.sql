-- Dataset curation: feedback signals, review history, near-duplicate index and sample labels.

-- Seed 004's feedback signals, detected by rule-based lexicons in user messages. A signal is stored on
-- the turn whose user message holds it; it reacts to the turns just before it in the same session.
CREATE TABLE dataset_feedback_signals (
  id          TEXT PRIMARY KEY,
  turn_id     TEXT NOT NULL REFERENCES conversation_turns(id) ON DELETE CASCADE,
  session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  type        TEXT NOT NULL CHECK (type IN ('reject', 'correction', 'constraint', 'success', 'confusion', 'preference')),
  source      TEXT NOT NULL DEFAULT 'user' CHECK (source IN ('user', 'execution', 'assistant_self_check')),
  language    TEXT NOT NULL CHECK (language IN ('en', 'zh')),
  rule        TEXT NOT NULL,                 -- the lexicon rule that matched
  evidence    TEXT NOT NULL,                 -- the clause that matched, verbatim
  confidence  REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
  created_at  INTEGER NOT NULL CHECK (created_at >= 0),   -- when the user said it (the turn's time)
  UNIQUE (turn_id, type, rule)
) STRICT;
CREATE INDEX idx_feedback_session_time ON dataset_feedback_signals(session_id, created_at);
CREATE INDEX idx_feedback_type ON dataset_feedback_signals(type);

-- Every review action, with the state it replaced, so the last one can be undone after a restart.
CREATE TABLE dataset_annotation_events (
  seq                       INTEGER PRIMARY KEY AUTOINCREMENT,
  sample_id                 TEXT NOT NULL REFERENCES dataset_samples(id) ON DELETE CASCADE,
  action                    TEXT NOT NULL CHECK (action IN ('approve', 'reject', 'needs_review', 'edit', 'pii_decision')),
  actor                     TEXT NOT NULL,
  notes                     TEXT,
  detail                    TEXT CHECK (detail IS NULL OR json_valid(detail)),
  prev_status               TEXT NOT NULL,
  prev_annotated_by         TEXT,
  prev_annotated_at         INTEGER,
  prev_notes                TEXT,
  prev_content              TEXT,            -- only for edits
  prev_pii_spans            TEXT,            -- for edits and PII decisions
  prev_pii_redacted_content TEXT,
  prev_contains_pii         INTEGER,
  prev_fingerprint          TEXT,
  created_at                INTEGER NOT NULL CHECK (created_at >= 0),
  undone_at                 INTEGER
) STRICT;
CREATE INDEX idx_annotation_events_open ON dataset_annotation_events(undone_at, seq);
CREATE INDEX idx_annotation_events_sample ON dataset_annotation_events(sample_id);

-- MinHash locality-sensitive hashing: one row per (band, sample). Samples sharing a band key are
-- near-duplicate candidates; their signatures are then compared.
CREATE TABLE dataset_lsh_bands (
  band_key  INTEGER NOT NULL,
  sample_id TEXT NOT NULL REFERENCES dataset_samples(id) ON DELETE CASCADE,
  PRIMARY KEY (band_key, sample_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX idx_lsh_sample ON dataset_lsh_bands(sample_id);

-- Signatures live apart from the samples: a sample row's large JSON spills to overflow pages, and
-- reading a column stored after it would walk them for every candidate comparison.
CREATE TABLE dataset_minhash (
  sample_id  TEXT PRIMARY KEY REFERENCES dataset_samples(id) ON DELETE CASCADE,
  cluster_id TEXT NOT NULL,
  signature  BLOB NOT NULL
) STRICT, WITHOUT ROWID;
-- criteria that applied, review reasons, related (0.60-0.85) samples, matched correction patterns
ALTER TABLE dataset_samples ADD COLUMN labels TEXT CHECK (labels IS NULL OR json_valid(labels));
CREATE INDEX idx_samples_type_created ON dataset_samples(sample_type, created_at);
CREATE INDEX idx_samples_correction ON dataset_samples(correction_id);
-- Covering indexes for the per-sample lookups of collection (exact duplicate) and export (first member of a cluster).
CREATE INDEX idx_samples_fingerprint_cluster ON dataset_samples(fingerprint, sample_type, cluster_id, id);
CREATE INDEX idx_samples_cluster_filters ON dataset_samples(cluster_id, sample_type, annotation_status, quality_score, session_id, correction_id);
