-- Issue 16: only dedupe looks samples up by fingerprint (findSampleByFingerprint), yet its index held
-- the whole 64-character SHA-256 with the type, cluster and id of every sample: about 150 bytes an
-- entry, 10,700 pages at 250,000 samples. Fingerprints are random, so each collection transaction of
-- about 3,750 samples dirtied about 3,000 of those pages, and at 100,000 decisions the index wrote
-- 1.6 GB (WAL and checkpoint) for 42 MB of index. An index of the first 16 characters (all that the
-- Bloom filter of a run hashes) is about 25 bytes an entry, 1,700 pages; the lookup compares the whole
-- fingerprint on the few rows that share the prefix (35 at most in the bench workspace) and orders them
-- as the old index did, so it answers with the same row.
DROP INDEX IF EXISTS idx_samples_fingerprint_cluster;
CREATE INDEX idx_samples_fingerprint_prefix ON dataset_samples(substr(fingerprint, 1, 16));
