-- Team curation: curators and their tokens, reservations, per-value PII decisions, bulk review
-- batches, reject reasons and the second-pass (agreement) queue.

-- A curator is a name; a token lets them in over browser mode. Only the token's SHA-256 is stored.
-- The local curator (the desktop app's user) has no token.
CREATE TABLE curators (
  name        TEXT PRIMARY KEY,
  token_hash  TEXT UNIQUE,
  role        TEXT NOT NULL DEFAULT 'curator' CHECK (role IN ('curator', 'lead')),
  is_local    INTEGER NOT NULL DEFAULT 0 CHECK (is_local IN (0, 1)),
  created_at  INTEGER NOT NULL CHECK (created_at >= 0),
  revoked_at  INTEGER
) STRICT;
CREATE UNIQUE INDEX idx_curators_one_local ON curators(is_local) WHERE is_local = 1;

-- A sample shown to one curator is not served to another until expires_at (released on skip or decision).
CREATE TABLE review_reservations (
  sample_id   TEXT PRIMARY KEY REFERENCES dataset_samples(id) ON DELETE CASCADE,
  curator     TEXT NOT NULL,
  expires_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX idx_reservations_curator ON review_reservations(curator, expires_at);

-- One decision for a PII value (redact or keep) over a session, the workspace or everywhere.
-- Applied to every matching span at once; the spans' previous states are kept so it can be undone.
CREATE TABLE pii_value_decisions (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  value       TEXT NOT NULL,
  pii_type    TEXT,
  scope       TEXT NOT NULL CHECK (scope IN ('session', 'workspace', 'global')),
  session_id  TEXT,
  decision    TEXT NOT NULL CHECK (decision IN ('redact', 'keep')),
  actor       TEXT NOT NULL,
  samples     INTEGER NOT NULL DEFAULT 0,
  spans       INTEGER NOT NULL DEFAULT 0,
  created_at  INTEGER NOT NULL CHECK (created_at >= 0),
  undone_at   INTEGER,
  undone_by   TEXT,
  CHECK ((scope = 'session') = (session_id IS NOT NULL))
) STRICT;
CREATE INDEX idx_pii_value_decisions_value ON pii_value_decisions(value, undone_at);

CREATE TABLE pii_value_decision_samples (
  decision_id   INTEGER NOT NULL REFERENCES pii_value_decisions(id) ON DELETE CASCADE,
  sample_id     TEXT NOT NULL REFERENCES dataset_samples(id) ON DELETE CASCADE,
  prev_accepted TEXT NOT NULL CHECK (json_valid(prev_accepted)),   -- {spanId: accepted before the decision}
  PRIMARY KEY (decision_id, sample_id)
) STRICT, WITHOUT ROWID;

-- Bulk actions: the events of one bulk action share a batch id, so one undo takes back all of them.
ALTER TABLE dataset_annotation_events ADD COLUMN batch_id TEXT;
ALTER TABLE dataset_annotation_events ADD COLUMN reason TEXT;
ALTER TABLE dataset_annotation_events ADD COLUMN prev_reject_reason TEXT;
CREATE INDEX idx_annotation_events_batch ON dataset_annotation_events(batch_id) WHERE batch_id IS NOT NULL;
CREATE INDEX idx_annotation_events_actor ON dataset_annotation_events(actor, seq);
ALTER TABLE dataset_samples ADD COLUMN reject_reason TEXT;

-- Second pass: a sample reviewed by one curator, sent to be labelled again by another. The first label
-- is frozen when the sample enters the pass; disagreements are adjudicated by a lead.
CREATE TABLE review_second_pass (
  sample_id          TEXT PRIMARY KEY REFERENCES dataset_samples(id) ON DELETE CASCADE,
  first_curator      TEXT NOT NULL,
  first_label        TEXT NOT NULL,
  second_curator     TEXT,
  second_label       TEXT,
  second_at          INTEGER,
  adjudicated_label  TEXT,
  adjudicated_by     TEXT,
  adjudicated_at     INTEGER,
  created_at         INTEGER NOT NULL CHECK (created_at >= 0)
) STRICT;
CREATE INDEX idx_second_pass_open ON review_second_pass(second_label, created_at);
