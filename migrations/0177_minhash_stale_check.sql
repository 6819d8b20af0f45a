-- Issue 16: every collection and export first asks whether some leader signature predates the
-- teaching-unit scheme (unit IS NULL). With no such row, that question scanned all of dataset_minhash,
-- two rows per three samples: 10-14 ms at 20,000 decisions, and growing with the workspace, before a
-- small export could write its first line. A partial index over the NULL rows answers at once, and it
-- stays empty once a workspace has been re-clustered.
CREATE INDEX IF NOT EXISTS idx_minhash_without_unit ON dataset_minhash(sample_id) WHERE unit IS NULL;
