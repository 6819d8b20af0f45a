-- Issue 16: dedupe's exact lookup reads a fingerprint prefix index (0181). Fingerprints are random, so
-- every collection transaction of about 5,000 samples dirtied a page of that index per sample until it
-- covered most of them, and wrote those pages to the WAL again: at 300,000 decisions its 5,127 pages were
-- written 55-80 times each, the largest share of what a collection wrote. The index now leads with a
-- generation, the table's last rowid when the row was stored over 2^17 (collectDedupe.ts): a transaction's
-- rows go into the pages of the newest generation only (at most about 900), and older generations are not
-- written again. The lookup asks each generation (a seek each: eight per million samples). Rows stored
-- before this migration, and rows stored outside collection, are generation 0.
ALTER TABLE dataset_samples ADD COLUMN fingerprint_gen INTEGER NOT NULL DEFAULT 0;
DROP INDEX IF EXISTS idx_samples_fingerprint_prefix;
CREATE INDEX idx_samples_fingerprint_gen ON dataset_samples(fingerprint_gen, substr(fingerprint, 1, 16));
