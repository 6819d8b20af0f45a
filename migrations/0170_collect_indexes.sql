-- Issue 16: every index is maintained on each sample collection inserts; these two serve no query.
-- idx_samples_cluster (0010) is a prefix of idx_samples_cluster_filters (0050), which serves every
-- cluster_id lookup the short one did. idx_feedback_type: no query reads feedback signals by type alone
-- (they are read by turn, through UNIQUE (turn_id, type, rule), and by session and time).
-- tests/perf/indexes.test.ts lists the indexes kept and checks the plans that use them.
DROP INDEX IF EXISTS idx_samples_cluster;
DROP INDEX IF EXISTS idx_feedback_type;
