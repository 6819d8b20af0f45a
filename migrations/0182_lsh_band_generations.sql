-- Issue 16: a collection keeps its new band rows in memory and writes them sorted, a million at a time
-- (dedupe.ts). Band keys are random, so each such flush into a large band table rewrote most of its
-- pages: at 100,000 decisions the band table (156 MB) took 450 MB of writes, and at 300,000 each of nine
-- flushes rewrote the whole table again. Rows now carry the generation of the flush that wrote them,
-- first in the key: a flush appends a new sorted generation at the end of the B-tree instead of
-- rewriting the old ones. Lookups ask each generation (there are few: a run's start merges them when
-- there are more than a handful). Existing rows become generation 0.
CREATE TABLE dataset_lsh_bands_gen (
  gen       INTEGER NOT NULL,
  band_key  INTEGER NOT NULL,
  sample_id TEXT NOT NULL,
  PRIMARY KEY (gen, band_key, sample_id)
) STRICT, WITHOUT ROWID;
INSERT INTO dataset_lsh_bands_gen (gen, band_key, sample_id)
  SELECT 0, band_key, sample_id FROM dataset_lsh_bands ORDER BY band_key, sample_id;
DROP TABLE dataset_lsh_bands;
ALTER TABLE dataset_lsh_bands_gen RENAME TO dataset_lsh_bands;
