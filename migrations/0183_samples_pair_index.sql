-- Issue 16: the preference exports (ranking, openai-dpo) plan from the samples that hold a pair, gate
-- refusals and corrected samples: 37,500 of the 252,500 in the bench's workspace. Their plan read each
-- of those rows from the table, scattered through it: about 0.17 s of CPU in a ranking export of 0.68 s.
-- This partial index holds every column the plan reads (exportSamples.ts listPlanColumns, splitting by
-- session or by turn) of those samples only, so the plan reads the index alone: 26 ms. Only a pair sample
-- pays an insert into it, at its end (created_at leads, and collection adds samples in time order):
-- inserting 60,000 samples of the bench's workspace with every sample index cost 29.4 µs a row with it
-- and 29.9 without (medians of seven alternating runs). Its WHERE clause is the plan's pair condition
-- (PAIR_CONDITION): SQLite uses a partial index only for a query whose WHERE clause implies the index's.
CREATE INDEX idx_samples_pairs ON dataset_samples(created_at, session_id, cluster_id, annotation_status, quality_score,
  sample_type, correction_id, collection_strategy, id, turn_id)
  WHERE sample_type = 'memory_gate_negative' OR correction_id IS NOT NULL;
