-- Eval sets come in versions (the current set and frozen ones such as v1-research and v2). A scenario
-- is one gold sample; this table says which versions list it, with that version's expected labels.
CREATE TABLE eval_scenario_versions (
  scenario_id TEXT NOT NULL,
  version     TEXT NOT NULL,
  task_type   TEXT NOT NULL CHECK (task_type IN ('memory_gate', 'write_guardian')),
  sample_id   TEXT,
  expected    TEXT CHECK (expected IS NULL OR json_valid(expected)),
  source_file TEXT NOT NULL,
  imported_at INTEGER NOT NULL CHECK (imported_at >= 0),
  PRIMARY KEY (scenario_id, version)
) STRICT;
CREATE INDEX idx_eval_versions_version ON eval_scenario_versions(version, task_type);

-- The plugin's eval runs (evals/results/*.json): one row per model of a run, pass/fail per scenario.
CREATE TABLE eval_runs (
  id           TEXT PRIMARY KEY,            -- <runId>:<modelId>
  run_id       TEXT NOT NULL,
  suite        TEXT NOT NULL,
  model_id     TEXT NOT NULL,
  model_label  TEXT,
  run_at       INTEGER NOT NULL CHECK (run_at >= 0),
  started_at   INTEGER,
  finished_at  INTEGER,
  total        INTEGER NOT NULL CHECK (total >= 0),
  passed       INTEGER NOT NULL CHECK (passed >= 0),
  error_counts TEXT CHECK (error_counts IS NULL OR json_valid(error_counts)),
  source_file  TEXT NOT NULL,
  imported_at  INTEGER NOT NULL CHECK (imported_at >= 0)
) STRICT;
CREATE INDEX idx_eval_runs_suite_model ON eval_runs(suite, model_id, run_at);

CREATE TABLE eval_results (
  run_id            TEXT NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
  scenario_id       TEXT NOT NULL,
  pass              INTEGER NOT NULL CHECK (pass IN (0, 1)),
  decision_pass     INTEGER CHECK (decision_pass IS NULL OR decision_pass IN (0, 1)),
  candidate_pass    INTEGER CHECK (candidate_pass IS NULL OR candidate_pass IN (0, 1)),
  expected_decision TEXT,
  actual_decision   TEXT,
  error_type        TEXT,
  detail            TEXT CHECK (detail IS NULL OR json_valid(detail)),
  PRIMARY KEY (run_id, scenario_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX idx_eval_results_scenario ON eval_results(scenario_id);
