-- write_guardian: what the workbench last saw of each memory file, and a journal that makes
-- file writes and database commits agree after a crash.

-- The last content of each memory file the workbench knows about. External-change detection
-- compares the disk with this row; a difference becomes a source='external' audit.
CREATE TABLE file_state (
  file_name    TEXT PRIMARY KEY CHECK (file_name IN ('MEMORY.md', 'USER.md', 'SOUL.md', 'IDENTITY.md', 'TOOLS.md')),
  snapshot_id  TEXT REFERENCES file_snapshots(id),   -- null: the file was absent
  content_hash TEXT CHECK (content_hash IS NULL OR length(content_hash) = 64),
  audit_id     TEXT REFERENCES write_guardian_audit(id) ON DELETE SET NULL,  -- the audit that produced it, if any
  observed_at  INTEGER NOT NULL CHECK (observed_at >= 0),
  CHECK ((snapshot_id IS NULL) = (content_hash IS NULL))
) STRICT;
CREATE INDEX idx_file_state_snapshot ON file_state(snapshot_id);

-- Every recorded write whose content is known (the plugin's, rollbacks, retries, external edits)
-- moves file_state forward, so a recorded write is never mistaken for an external one.
-- Older writes (imports of history) never move it backwards. A known deletion has a diff but no after-snapshot.
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

-- A database that already holds recorded writes starts from the newest known content of each file,
-- so a difference on disk is recorded as an external change rather than taken as the baseline.
INSERT INTO file_state (file_name, snapshot_id, content_hash, audit_id, observed_at)
SELECT a.target_file, a.after_snapshot_id, s.content_hash, a.id, a.created_at
FROM write_guardian_audit a
LEFT JOIN file_snapshots s ON s.id = a.after_snapshot_id
WHERE a.rowid = (
  SELECT b.rowid FROM write_guardian_audit b
  WHERE b.target_file = a.target_file AND b.status = 'written' AND (b.after_snapshot_id IS NOT NULL OR b.diff IS NOT NULL)
  ORDER BY b.created_at DESC, b.rowid DESC LIMIT 1
);

-- The operations journal: the intent of a workbench file write is committed before the file is
-- touched, and marked committed in the same transaction as its database effects. On open,
-- reconcilePending() finishes (file already written) or abandons (file untouched) planned rows.
CREATE TABLE file_operations (
  id                  TEXT PRIMARY KEY,
  kind                TEXT NOT NULL CHECK (kind IN ('rollback', 'retry')),
  target_file         TEXT NOT NULL CHECK (target_file IN ('MEMORY.md', 'USER.md', 'SOUL.md', 'IDENTITY.md', 'TOOLS.md')),
  audit_id            TEXT NOT NULL REFERENCES write_guardian_audit(id),  -- the audit acted on
  expected_hash       TEXT,   -- SHA-256 of the file when planned; null: absent
  planned_hash        TEXT,   -- SHA-256 of the content to write; null: delete the file
  backup_snapshot_id  TEXT REFERENCES file_snapshots(id),  -- the file when planned (null: absent, or released when abandoned)
  planned_snapshot_id TEXT REFERENCES file_snapshots(id),  -- the content to write (null: delete)
  plan                TEXT NOT NULL CHECK (json_valid(plan)),  -- the database effects to apply once the file is written
  state               TEXT NOT NULL CHECK (state IN ('planned', 'committed', 'abandoned')),
  message             TEXT,
  created_at          INTEGER NOT NULL CHECK (created_at >= 0),
  finished_at         INTEGER
) STRICT;
CREATE INDEX idx_file_operations_state ON file_operations(state);
CREATE INDEX idx_file_operations_backup ON file_operations(backup_snapshot_id);
CREATE INDEX idx_file_operations_planned ON file_operations(planned_snapshot_id);

-- Rollback lookups by the audit that recorded the rollback's own write.
CREATE INDEX idx_rollbacks_rollback_audit ON rollbacks(rollback_audit_id);
