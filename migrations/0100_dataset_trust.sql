-- Training data a model can trust (issue 12): missed-write corrections, curator-picked cluster
-- representatives, the unit text near-duplicates are checked on, and the preference export formats.

-- A curator's correction of a NO_WRITE decision: the gate should have written this fact to this file.
-- behavior_corrections hangs off a write audit, which a NO_WRITE decision never has.
CREATE TABLE dataset_gate_corrections (
  id                    TEXT PRIMARY KEY,
  decision_id           TEXT NOT NULL REFERENCES memory_gate_decisions(id) ON DELETE CASCADE,
  kind                  TEXT NOT NULL CHECK (kind IN ('missed_write')),
  corrected_decision    TEXT NOT NULL CHECK (corrected_decision IN ('UPDATE_MEMORY', 'UPDATE_USER', 'UPDATE_SOUL', 'UPDATE_IDENTITY', 'UPDATE_TOOLS')),
  corrected_fact        TEXT NOT NULL CHECK (length(trim(corrected_fact)) > 0),
  corrected_target_file TEXT NOT NULL CHECK (corrected_target_file IN ('MEMORY.md', 'USER.md', 'SOUL.md', 'IDENTITY.md', 'TOOLS.md')),
  reason                TEXT NOT NULL CHECK (length(trim(reason)) > 0),
  corrected_by          TEXT NOT NULL,
  corrected_at          INTEGER NOT NULL CHECK (corrected_at >= 0)
) STRICT;
CREATE INDEX idx_gate_corrections_decision ON dataset_gate_corrections(decision_id, corrected_at);

-- The member of a near-duplicate cluster a curator chose to export.
CREATE TABLE dataset_cluster_picks (
  cluster_id TEXT PRIMARY KEY,
  sample_id  TEXT NOT NULL REFERENCES dataset_samples(id) ON DELETE CASCADE,
  picked_by  TEXT NOT NULL,
  picked_at  INTEGER NOT NULL CHECK (picked_at >= 0)
) STRICT;

-- What a record teaches (judged turn + target), redacted and normalized: candidates found through
-- MinHash bands are confirmed with an exact Jaccard on it. NULL marks a signature of the old scheme.
ALTER TABLE dataset_minhash ADD COLUMN unit TEXT;

-- New export formats (LLaMA-Factory ranking, KTO) and the export's summary (what was included, label
-- balance, folded duplicates, token counts, languages). SQLite cannot alter a CHECK: rebuild the table.
CREATE TABLE dataset_exports_v2 (
  id                 TEXT PRIMARY KEY,
  export_name        TEXT NOT NULL,
  export_format      TEXT NOT NULL CHECK (export_format IN ('alpaca', 'sharegpt', 'openai', 'openai-dpo', 'ranking', 'kto', 'parquet', 'raw', 'csv')),
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
  files              TEXT CHECK (files IS NULL OR json_valid(files)),
  exported_by        TEXT,
  exported_at        INTEGER NOT NULL CHECK (exported_at >= 0),
  summary            TEXT CHECK (summary IS NULL OR json_valid(summary))
) STRICT;
INSERT INTO dataset_exports_v2 (id, export_name, export_format, sample_types, filters, total_samples, approved_samples,
  rejected_samples, train_samples, validation_samples, avg_quality_score, include_pii, file_path, file_size_bytes, checksum,
  files, exported_by, exported_at)
SELECT id, export_name, export_format, sample_types, filters, total_samples, approved_samples, rejected_samples,
  train_samples, validation_samples, avg_quality_score, include_pii, file_path, file_size_bytes, checksum, files,
  exported_by, exported_at
FROM dataset_exports;
DROP TABLE dataset_exports;
ALTER TABLE dataset_exports_v2 RENAME TO dataset_exports;
CREATE INDEX idx_exports_at ON dataset_exports(exported_at);
