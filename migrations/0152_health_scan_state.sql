-- How far secret scanning has read the audit table: writes are scanned by the workbench after they
-- arrive (before any list or count shows them), not inside the plugin's recording path.
CREATE TABLE health_scan_state (
  name       TEXT PRIMARY KEY,
  last_rowid INTEGER NOT NULL CHECK (last_rowid >= 0)
) STRICT;
