import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EvalSuiteComparison } from '../../src/shared/contract';
import { WorkspaceSession } from '../../src/api/session';
import { buildHandlers } from '../../src/api/handlers';
import { JobManager } from '../../src/api/jobs/manager';
import { createRegistry } from '../../src/api/registry';
import { importEvals } from '../../src/core/importers';
import { tempWorkspace } from '../helpers/workspace';
import { contextOf, count, dataCounts, evalsDir, lines, newContext, writeFile } from './helpers';

/** Distinct scenario ids over every scenarios.jsonl of the data (optionally of one task). */
function distinctScenarios(dir: string, task?: string): Set<string> {
  const ids = new Set<string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name === 'scenarios.jsonl') {
        for (const l of lines(path.join(d, e.name))) {
          const s = JSON.parse(l) as { scenario_id: string; task_type: string };
          if (!task || s.task_type === task) ids.add(s.scenario_id);
        }
      }
    }
  };
  walk(dir);
  return ids;
}

/** A results file in the shape of the plugin's evals/run.mjs output. */
function resultsFile(runId: string, modelId: string, ids: string[], pass: (i: number) => boolean) {
  const results = ids.map((scenarioId, i) => ({
    scenarioId,
    pass: pass(i),
    decisionPass: pass(i),
    candidatePass: pass(i),
    judgeUsed: false,
    actualDecision: 'NO_WRITE',
    expectedDecision: 'UPDATE_USER',
  }));
  return {
    runId,
    timestamp: '2026-03-08T17:56:26.650Z',
    suite: 'memory-gate',
    baselineModelId: modelId,
    models: [
      {
        modelId,
        modelLabel: `Model ${modelId}`,
        suite: 'memory-gate',
        startedAt: '2026-03-08T17:56:12.302Z',
        finishedAt: '2026-03-08T17:56:26.650Z',
        summary: {
          total: ids.length,
          passed: results.filter((r) => r.pass).length,
          errorCounts: { provider_error: 0, schema_error: 0, execution_error: 0 },
        },
        results,
      },
    ],
    comparison: { ranking: [], baselineDiffs: [], hardestCases: [], disagreementCases: [] },
  };
}

describe('import evals', () => {
  it('imports every version (current, v1-research, v2) in one run: each distinct scenario once, each version kept as a label', async () => {
    const ctx = newContext();
    const expected = distinctScenarios(evalsDir);
    expect(expected.size).toBe(80);
    const report = await importEvals(ctx, { source: evalsDir });
    expect(report.status).toBe('ok');
    expect(report.skippedCount).toBe(0);
    expect(report.inserted.dataset_samples).toBe(expected.size);
    expect(
      new Set(
        ctx.db
          .prepare("SELECT json_extract(content, '$.gold.scenarioId') FROM dataset_samples WHERE collection_strategy = 'gold_eval'")
          .pluck()
          .all(),
      ),
    ).toEqual(expected);
    expect(count(ctx.db, "dataset_samples WHERE collection_strategy = 'gold_eval' AND annotation_status = 'approved'")).toBe(80);
    const versionsOf = (id: string) =>
      ctx.db.prepare('SELECT version FROM eval_scenario_versions WHERE scenario_id = ? ORDER BY version').pluck().all(id);
    expect(versionsOf('mg2_user_prefers_brutal_honesty')).toEqual(['current', 'v2']);
    const v1 = ctx.db
      .prepare("SELECT scenario_id FROM eval_scenario_versions WHERE version = 'v1-research' AND task_type = 'memory_gate'")
      .pluck()
      .all() as string[];
    expect(v1).toHaveLength(16);
    expect(versionsOf(v1[0]!)).toEqual(['v1-research']);
    expect(count(ctx.db, "eval_scenario_versions WHERE version = 'v1-research' AND task_type = 'write_guardian'")).toBe(16);

    const gate = ctx.db
      .prepare("SELECT * FROM dataset_samples WHERE source_key = 'gold_eval:memory_gate:mg2_user_prefers_brutal_honesty'")
      .get() as Record<string, string>;
    const content = JSON.parse(gate.content!);
    expect(content.memoryGate.output).toEqual({ decision: 'UPDATE_USER', candidateFact: 'prefers direct technical feedback' });
    expect(content.gold.versions).toEqual(['current', 'v2']);
    expect(content.memoryGate.allowedCandidateFactVariants).toContain('wants direct technical feedback');
    const turn = ctx.db.prepare('SELECT * FROM conversation_turns WHERE id = ?').get(gate.turn_id) as Record<string, string>;
    expect(turn).toMatchObject({
      session_id: 'eval:mg2_user_prefers_brutal_honesty',
      user_message_content: '你就按很直接的 code review 风格来。',
    });
    expect(contextOf(ctx.db, gate.turn_id!).map((c) => `${c.role}:${c.message}`)).toEqual([
      'user:以后别太委婉，问题直接指出来。',
      'agent:可以，我会直接指出问题和风险。',
      'user:你就按很直接的 code review 风格来。',
      'agent:后续我会保持直接、明确的技术反馈。',
    ]);

    const wg = JSON.parse(
      ctx.db
        .prepare("SELECT content FROM dataset_samples WHERE source_key = 'gold_eval:write_guardian:wg_user_refuse_one_off_emotion'")
        .pluck()
        .get() as string,
    );
    expect(wg).toMatchObject({
      type: 'write_guardian_decision',
      candidateFact: 'feels annoyed today',
      targetFile: 'USER.md',
      currentFileContent: '# USER\n\n## Preferences\n- prefers Chinese by default\n',
      decision: 'refused',
    });
    // UPDATE_TOOLS is part of the decision enum and comes in like the others.
    expect(count(ctx.db, "dataset_samples WHERE json_extract(content, '$.memoryGate.output.decision') = 'UPDATE_TOOLS'")).toBeGreaterThan(
      0,
    );

    const before = dataCounts(ctx.db);
    const again = await importEvals(ctx, { source: evalsDir });
    expect(again.status).toBe('nothing_new');
    expect(again.inserted).toEqual({});
    expect(dataCounts(ctx.db)).toEqual(before);
  });

  it('takes one task folder (evals/datasets/memory-gate) with its versions, and a plugin root with its results', async () => {
    const ctx = newContext();
    const gateOnly = await importEvals(ctx, { source: path.join(evalsDir, 'memory-gate') });
    expect(gateOnly.skippedCount).toBe(0);
    const gateIds = [...distinctScenarios(evalsDir, 'memory_gate')];
    expect(count(ctx.db, 'dataset_samples')).toBe(gateIds.length);
    expect(count(ctx.db, "dataset_samples WHERE sample_type <> 'annotated_turn'")).toBe(0);

    // A plugin root: evals/datasets plus evals/results/*.json, as the plugin lays them out.
    const root = path.join(ctx.workspaceDir, 'plugin');
    fs.cpSync(evalsDir, path.join(root, 'evals', 'datasets'), { recursive: true });
    const ids = gateIds.slice(0, 6);
    writeFile(
      path.join(root, 'evals', 'results', '2026-03-09-memory-gate-model-a.json'),
      JSON.stringify(resultsFile('run-a', 'model-a', ids, (i) => i !== 0)),
    );
    writeFile(
      path.join(root, 'evals', 'results', '2026-03-09-memory-gate-model-b.json'),
      JSON.stringify(resultsFile('run-b', 'model-b', ids.slice(0, 5), (i) => i % 2 === 0)),
    );
    writeFile(path.join(root, 'evals', 'results', 'broken.json'), '{"runId": 5}');
    const report = await importEvals(ctx, { source: root });
    expect(report.inserted).toMatchObject({ eval_runs: 2, eval_results: 11 });
    expect(report.skipped.map((s) => path.basename(s.file))).toEqual(['broken.json']);
    expect(count(ctx.db, 'dataset_samples')).toBe(80);

    const dir = tempWorkspace('reflection-state-');
    const session = new WorkspaceSession({ stateDir: dir });
    session.open(ctx.workspaceDir);
    const registry = createRegistry(buildHandlers(), { mode: 'web', version: 't', session, jobs: new JobManager(() => undefined) });
    const answer = await registry.dispatch('stats.evalModels', {});
    expect(answer.ok).toBe(true);
    const suites = (answer as { ok: true; value: EvalSuiteComparison[] }).value;
    expect(suites.map((s) => s.suite)).toEqual(['memory-gate']);
    const [suite] = suites;
    if (!suite) throw new Error('no suite');
    expect(suite.commonScenarios).toBe(5);
    const byModel = Object.fromEntries(suite.models.map((m) => [m.modelId, m]));
    expect(byModel['model-a']).toMatchObject({ total: 6, passed: 5, commonPassed: 4, modelLabel: 'Model model-a' });
    expect(byModel['model-b']).toMatchObject({ total: 5, passed: 3, commonPassed: 3 });
    expect(suite.scenarios[0]).toEqual({ scenarioId: ids[0], results: { 'model-a': false, 'model-b': true } });
    session.close();
  });

  it('reports scenarios without labels and labels without scenarios, importing the rest', async () => {
    const ctx = newContext();
    const dir = path.join(ctx.workspaceDir, 'evals');
    writeFile(
      path.join(dir, 'shared', 'scenarios.jsonl'),
      [
        JSON.stringify({ scenario_id: 'a', task_type: 'memory_gate', title: 't', current_user_message: 'u', current_agent_reply: 'r' }),
        JSON.stringify({ scenario_id: 'b', task_type: 'memory_gate', title: 't', current_user_message: 'u', current_agent_reply: 'r' }),
        JSON.stringify({ scenario_id: 'c', task_type: 'write_guardian', title: 't', candidate_fact: 5, target_file: 'USER.md' }),
      ].join('\n') + '\n',
    );
    writeFile(
      path.join(dir, 'memory-gate', 'benchmark.jsonl'),
      `${JSON.stringify({ scenario_id: 'a', expected_decision: 'NO_WRITE' })}\n${JSON.stringify({ scenario_id: 'z', expected_decision: 'NO_WRITE' })}\n`,
    );
    writeFile(
      path.join(dir, 'write-guardian', 'benchmark.jsonl'),
      `${JSON.stringify({ scenario_id: 'c', expected_should_write: true })}\n`,
    );
    const report = await importEvals(ctx, { source: dir });
    expect(report.status).toBe('partial');
    expect(report.inserted.dataset_samples).toBe(1);
    expect(report.skipped.map((s) => `${path.basename(s.file)}:${s.line} ${s.reason}`)).toEqual([
      'scenarios.jsonl:2 no expected labels for b in memory-gate/benchmark.jsonl',
      'scenarios.jsonl:3 candidate_fact: expected a string, got number',
      'benchmark.jsonl:2 no scenario z in shared/scenarios.jsonl',
    ]);
  });
});
