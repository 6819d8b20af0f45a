// The plugin's eval runs (evals/results/*.json, written by its `evals/run.mjs`): per model, pass/fail
// per scenario. Imported so a curator compares models on the same scenarios (Stats).
import fs from 'node:fs';
import { z } from 'zod';
import type { EvalSuiteComparison } from '../../shared/contract';
import { writeTx } from '../db/connection';
import {
  insertEvalResultIfNew,
  insertEvalRunIfNew,
  listEvalResultsOfRun,
  listLatestEvalRuns,
  scenarioKnown,
} from '../db/repositories/evals';
import { nowOf, type ServiceContext } from '../context';
import { parseTime } from './ids';
import type { ReportBuilder } from './report';

const MAX_RESULTS_BYTES = 64 * 1024 * 1024;

const resultSchema = z.looseObject({
  scenarioId: z.string().min(1),
  pass: z.boolean(),
  decisionPass: z.boolean().optional(),
  candidatePass: z.boolean().optional(),
  expectedDecision: z.string().optional(),
  actualDecision: z.string().optional(),
  errorType: z.string().optional(),
});
const modelSchema = z.looseObject({
  modelId: z.string().min(1),
  modelLabel: z.string().optional(),
  suite: z.string().optional(),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  summary: z.looseObject({ errorCounts: z.record(z.string(), z.number()).optional() }).optional(),
  results: z.array(resultSchema),
});
const runSchema = z.looseObject({
  runId: z.string().min(1),
  timestamp: z.string().optional(),
  suite: z.string().min(1),
  models: z.array(modelSchema),
});

const bit = (b: boolean | undefined) => (b === undefined ? null : b ? 1 : 0);

function readRun(file: string, report: ReportBuilder): z.infer<typeof runSchema> | undefined {
  if (fs.statSync(file).size > MAX_RESULTS_BYTES) {
    report.skip(file, 0, 'results file too large; not read');
    return undefined;
  }
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    report.skip(file, 0, `malformed JSON (${(e as Error).message.slice(0, 80)})`);
    return undefined;
  }
  const parsed = runSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    report.skip(file, 0, `not an eval results file: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
    return undefined;
  }
  return parsed.data;
}

/** Adds each file's runs once (ids are <runId>:<modelId>); rows of a run that is already there are left alone. */
export function importEvalResults(ctx: ServiceContext, report: ReportBuilder, files: string[]): void {
  const now = nowOf(ctx);
  let unknown = 0;
  for (const file of files) {
    const runData = readRun(file, report);
    report.report.files.push({
      path: file,
      fromOffset: 0,
      bytesRead: fs.statSync(file).size,
      linesRead: runData ? 1 : 0,
      restarted: false,
    });
    if (!runData) continue;
    report.report.linesUnderstood++;
    writeTx(ctx.db, () => {
      for (const m of runData.models) {
        const id = `${runData.runId}:${m.modelId}`;
        const passed = m.results.filter((r) => r.pass).length;
        const added = insertEvalRunIfNew(ctx.db, {
          id,
          runId: runData.runId,
          suite: m.suite ?? runData.suite,
          modelId: m.modelId,
          modelLabel: m.modelLabel ?? null,
          runAt: parseTime(runData.timestamp) ?? parseTime(m.startedAt) ?? now,
          startedAt: parseTime(m.startedAt) ?? null,
          finishedAt: parseTime(m.finishedAt) ?? null,
          total: m.results.length,
          passed,
          errors: m.summary?.errorCounts ? JSON.stringify(m.summary.errorCounts) : null,
          file,
          now,
        });
        if (!report.inserted('eval_runs', added)) continue;
        for (const r of m.results) {
          const { scenarioId, pass, decisionPass, candidatePass, expectedDecision, actualDecision, errorType, ...rest } = r;
          const changes = insertEvalResultIfNew(ctx.db, {
            runId: id,
            scenarioId,
            pass: pass ? 1 : 0,
            decisionPass: bit(decisionPass),
            candidatePass: bit(candidatePass),
            expectedDecision: expectedDecision ?? null,
            actualDecision: actualDecision ?? null,
            errorType: errorType ?? null,
            detail: JSON.stringify(rest),
          });
          report.count('eval_results', changes);
          if (!scenarioKnown(ctx.db, scenarioId)) unknown++;
        }
      }
    });
  }
  if (unknown) report.note(`${unknown} result${unknown === 1 ? ' names a scenario' : 's name scenarios'} not imported from an eval set.`);
}

/** The latest run of each model per suite, compared on the scenarios they all ran. */
export function evalModelComparison(ctx: ServiceContext): EvalSuiteComparison[] {
  const latest = listLatestEvalRuns(ctx.db);
  type Building = EvalSuiteComparison & { perModel: Map<string, Map<string, boolean>> };
  const suites = new Map<string, Building>();
  for (const run of latest) {
    const suite: Building = suites.get(run.suite) ?? {
      suite: run.suite,
      commonScenarios: 0,
      models: [],
      scenarios: [],
      perModel: new Map(),
    };
    suites.set(run.suite, suite);
    const rows = listEvalResultsOfRun(ctx.db, run.id);
    suite.perModel.set(run.modelId, new Map(rows.map((r) => [r.scenarioId, r.pass === 1])));
    suite.models.push({
      modelId: run.modelId,
      modelLabel: run.modelLabel,
      runId: run.runId,
      runAt: run.runAt,
      total: rows.length,
      passed: rows.filter((r) => r.pass === 1).length,
      commonPassed: 0,
      errors: run.errors ? (JSON.parse(run.errors) as Record<string, number>) : {},
    });
  }
  return [...suites.values()].map(({ perModel, ...suite }) => {
    const all = new Set([...perModel.values()].flatMap((m) => [...m.keys()]));
    const common = [...all].filter((id) => [...perModel.values()].every((m) => m.has(id)));
    for (const m of suite.models) m.commonPassed = common.filter((id) => perModel.get(m.modelId)!.get(id)).length;
    const scenarios = [...all].map((scenarioId) => ({
      scenarioId,
      results: Object.fromEntries([...perModel].filter(([, m]) => m.has(scenarioId)).map(([model, m]) => [model, m.get(scenarioId)!])),
    }));
    const fails = (s: (typeof scenarios)[number]) => Object.values(s.results).filter((p) => !p).length;
    scenarios.sort((a, b) => fails(b) - fails(a) || a.scenarioId.localeCompare(b.scenarioId));
    return { ...suite, commonScenarios: common.length, scenarios };
  });
}
