-- Issue 16: an export's plan folds each near-duplicate cluster into one sample, preferring a corrected one:
-- a sample with a correction id, or one collected from a curator's correction or missed write. Every column
-- the plan reads but the collection strategy is in idx_samples_cluster_filters, so the plan reads that index
-- instead of scanning the whole table (exportSamples.ts listPlanColumns). This partial index holds the
-- samples the strategy alone marks as corrected (no correction id: a curator's missed write), so the plan
-- reads them from it alone; every other sample pays only the test of its WHERE clause when it is inserted.
CREATE INDEX idx_samples_strategy_corrected ON dataset_samples(collection_strategy, correction_id)
  WHERE correction_id IS NULL AND collection_strategy IN ('manual_correction', 'missed_write');
