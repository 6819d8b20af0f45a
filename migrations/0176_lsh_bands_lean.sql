-- Issue 16: collection writes sixteen band rows per cluster leader, about 14 rows per decision. Each row
-- paid a foreign-key check against dataset_samples and an entry in idx_lsh_sample, which existed only for
-- the ON DELETE CASCADE; together they were two thirds of the row's cost and half of the table's size.
-- Without them, a deleted sample's band rows stay behind until the next collection removes them
-- (repairBandIndex), and until then the lookup of a band skips ids that have no dataset_minhash row
-- (dataset_minhash still cascades from dataset_samples), so lookups answer as the cascade did.
CREATE TABLE dataset_lsh_bands_lean (
  band_key  INTEGER NOT NULL,
  sample_id TEXT NOT NULL,
  PRIMARY KEY (band_key, sample_id)
) STRICT, WITHOUT ROWID;
INSERT INTO dataset_lsh_bands_lean (band_key, sample_id)
  SELECT b.band_key, b.sample_id FROM dataset_lsh_bands b ORDER BY b.band_key, b.sample_id;
DROP TABLE dataset_lsh_bands;
ALTER TABLE dataset_lsh_bands_lean RENAME TO dataset_lsh_bands;
