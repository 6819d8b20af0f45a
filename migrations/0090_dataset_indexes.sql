-- idx_samples_fingerprint (0010) is a prefix of idx_samples_fingerprint_cluster (0050): the longer index
-- serves every lookup the short one did, and each sample insert maintains one index fewer.
DROP INDEX IF EXISTS idx_samples_fingerprint;
