-- A recorded write deleted later (retention, a purge, or by hand) leaves its version in the chain;
-- this records the deletion as a chain event, so verify shows it as a deletion instead of silence,
-- and does not take a deliberate purge for tampering.
CREATE TRIGGER trg_health_audit_deleted AFTER DELETE ON write_guardian_audit
WHEN EXISTS (SELECT 1 FROM memory_versions WHERE audit_id = OLD.id)
BEGIN
  INSERT OR IGNORE INTO memory_chain_events (id, file_name, from_seq, reason, erasure_id, old_head, new_head, created_at)
  SELECT 'deleted:' || OLD.id, file_name, seq, 'the write of this version was deleted (retention, a purge, or by hand)', NULL, NULL, NULL,
         CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
  FROM memory_versions WHERE audit_id = OLD.id;
END;
