-- Issue 16: an export hides a value detected in one sample of a session in every other sample of that
-- session, so it reads the PII spans of each session it writes. Only samples that hold PII have spans
-- (pii_spans is NULL otherwise, about 5% of them): through idx_samples_session SQLite read every sample
-- row of the session to find those few. This partial index holds only the samples with spans, so the
-- lookup reads nothing else, and collection maintains it only for samples that contain PII.
CREATE INDEX IF NOT EXISTS idx_samples_session_spans ON dataset_samples(session_id) WHERE pii_spans IS NOT NULL;
