// Imported eval sets and eval runs: each scenario version, its gold sample (an approved dataset sample),
// and the runs of models over the scenarios with one result row per scenario.
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface GoldSampleParams {
  id: string;
  type: string;
  turnId: string | null;
  sessionId: string;
  content: string;
  factors: string;
  actor: string;
  now: number;
  notes: string | null;
  sourceKey: string;
  strategy: string;
}

export interface EvalRunParams {
  id: string;
  runId: string;
  suite: string;
  modelId: string;
  modelLabel: string | null;
  runAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  total: number;
  passed: number;
  errors: string | null;
  file: string;
  now: number;
}

export interface EvalResultParams {
  runId: string;
  scenarioId: string;
  pass: number;
  decisionPass: number | null;
  candidatePass: number | null;
  expectedDecision: string | null;
  actualDecision: string | null;
  errorType: string | null;
  detail: string;
}

export interface LatestEvalRunRow {
  id: string;
  runId: string;
  suite: string;
  modelId: string;
  modelLabel: string | null;
  runAt: number;
  errors: string | null;
}

/** A gold sample is approved with quality 1 from the start; 1 when it is new. */
export function insertGoldSampleIfNew(db: DB, p: GoldSampleParams): number {
  return stmt(
    db,
    `
    INSERT OR IGNORE INTO dataset_samples (id, sample_type, turn_id, session_id, content, quality_score, quality_factors,
      annotation_status, annotated_by, annotated_at, annotation_notes, source_key, collection_strategy, created_at)
    VALUES (@id, @type, @turnId, @sessionId, @content, 1, @factors, 'approved', @actor, @now, @notes, @sourceKey, @strategy, @now)`,
  ).run(p).changes;
}

export function insertScenarioVersionIfNew(
  db: DB,
  v: { scenarioId: string; version: string; task: string; sampleId: string | null; expected: string; file: string; now: number },
): number {
  return stmt(
    db,
    `
    INSERT OR IGNORE INTO eval_scenario_versions (scenario_id, version, task_type, sample_id, expected, source_file, imported_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(v.scenarioId, v.version, v.task, v.sampleId, v.expected, v.file, v.now).changes;
}

export function scenarioKnown(db: DB, scenarioId: string): boolean {
  return stmt(db, 'SELECT 1 FROM eval_scenario_versions WHERE scenario_id = ? LIMIT 1').pluck().get(scenarioId) !== undefined;
}

export function insertEvalRunIfNew(db: DB, p: EvalRunParams): number {
  return stmt(
    db,
    `
    INSERT OR IGNORE INTO eval_runs (id, run_id, suite, model_id, model_label, run_at, started_at, finished_at, total, passed, error_counts, source_file, imported_at)
    VALUES (@id, @runId, @suite, @modelId, @modelLabel, @runAt, @startedAt, @finishedAt, @total, @passed, @errors, @file, @now)`,
  ).run(p).changes;
}

export function insertEvalResultIfNew(db: DB, p: EvalResultParams): number {
  return stmt(
    db,
    `
    INSERT OR IGNORE INTO eval_results (run_id, scenario_id, pass, decision_pass, candidate_pass, expected_decision, actual_decision, error_type, detail)
    VALUES (@runId, @scenarioId, @pass, @decisionPass, @candidatePass, @expectedDecision, @actualDecision, @errorType, @detail)`,
  ).run(p).changes;
}

/** The latest run of each model in each suite. */
export function listLatestEvalRuns(db: DB): LatestEvalRunRow[] {
  return stmt<LatestEvalRunRow>(
    db,
    `SELECT r.id, r.run_id AS runId, r.suite, r.model_id AS modelId, r.model_label AS modelLabel, r.run_at AS runAt, r.error_counts AS errors
     FROM eval_runs r WHERE r.id = (SELECT id FROM eval_runs x WHERE x.suite = r.suite AND x.model_id = r.model_id ORDER BY run_at DESC, id DESC LIMIT 1)
     ORDER BY r.suite, r.model_id`,
  ).all();
}

export function listEvalResultsOfRun(db: DB, runId: string): Array<{ scenarioId: string; pass: number }> {
  return stmt<{ scenarioId: string; pass: number }>(db, 'SELECT scenario_id AS scenarioId, pass FROM eval_results WHERE run_id = ?').all(
    runId,
  );
}
