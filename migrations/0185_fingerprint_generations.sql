-- Issue 16: the fingerprint prefix index of migration 0181 was still the largest writer of a long
-- collection: its keys are random, so every transaction dirtied about half of its pages again, and at
-- 300,000 decisions it wrote 1.1-1.6 GB of WAL for 20 MB of index. Dedupe's exact lookup now reads a table
-- of its own, in generations as the band table (migration 0182): a collection transaction writes its
-- samples' rows into a new generation at the end of the B-tree (dedupe.ts startFingerprintGeneration),
-- and small generations are merged into larger ones, sorted, so each row is written a few times, not
-- once per transaction. Lookups ask the generations that may hold the prefix (a Bloom filter each) and
-- check the sample's own fingerprint, so rows of deleted samples or of changed fingerprints only fail to
-- match.
--
-- Collection is the only writer that inserts samples with a fingerprint, and writes their rows itself
-- (Deduper.index: in a micro-benchmark a trigger on insert added 20-25 µs to a sample's insert, the
-- statement 8-10). The trigger below keeps the table complete whatever else changes a fingerprint (a
-- review edit, a re-clustering): its rows go into the generation dataset_fingerprint_gen names. Existing rows start as generation 7:
-- level 7 (gen % 8), a base that only a run's start merges (dedupe.ts). A migration that rebuilds
-- dataset_samples must create the trigger again; a new way to insert samples with a fingerprint must
-- write their rows too.
CREATE TABLE dataset_fingerprints (
  gen       INTEGER NOT NULL,
  prefix    TEXT NOT NULL,
  sample_id TEXT NOT NULL,
  PRIMARY KEY (gen, prefix, sample_id)
) STRICT, WITHOUT ROWID;
CREATE TABLE dataset_fingerprint_gen (
  only INTEGER PRIMARY KEY CHECK (only = 1),
  gen  INTEGER NOT NULL
) STRICT;
INSERT INTO dataset_fingerprint_gen (only, gen) VALUES (1, 7);
INSERT INTO dataset_fingerprints (gen, prefix, sample_id)
  SELECT 7, substr(fingerprint, 1, 16), id FROM dataset_samples WHERE fingerprint IS NOT NULL ORDER BY 2, 3;
DROP INDEX IF EXISTS idx_samples_fingerprint_prefix;
CREATE TRIGGER trg_samples_fingerprint_update AFTER UPDATE OF id, fingerprint ON dataset_samples
  WHEN NEW.fingerprint IS NOT NULL AND (NEW.fingerprint IS NOT OLD.fingerprint OR NEW.id IS NOT OLD.id)
BEGIN
  INSERT OR IGNORE INTO dataset_fingerprints (gen, prefix, sample_id)
    VALUES ((SELECT gen FROM dataset_fingerprint_gen), substr(NEW.fingerprint, 1, 16), NEW.id);
END;
