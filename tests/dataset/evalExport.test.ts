// The held-out eval export, checked against the plugin runner's own dataset interfaces (SharedScenario,
// MemoryGateBenchmarkCase, WriteGuardianBenchmarkCase in openclaw-reflection's src/evals/runner.ts) and
// read the way its runner reads them; the shared eval files of the plugin pass the same checks.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collectSamples, exportEvalSet } from '../../src/core/dataset';
import { GATE_DECISIONS, MEMORY_FILES } from '../../src/shared/domain';
import { sharedDir } from '../helpers/workspace';
import { readJsonl } from './openaiValidator';
import { miniWorkspace } from './miniTemp';

const message = z.strictObject({ role: z.enum(['user', 'agent']), message: z.string() });
const scenario = z.strictObject({
  scenario_id: z.string().min(1),
  task_type: z.enum(['memory_gate', 'write_guardian']).optional(),
  title: z.string(),
  recent_messages: z.array(message).optional(),
  current_user_message: z.string().optional(),
  current_agent_reply: z.string().optional(),
  gate_decision: z.enum(GATE_DECISIONS).optional(),
  gate_reason: z.string().optional(),
  candidate_fact: z.string().optional(),
  target_file: z.enum(MEMORY_FILES).optional(),
  current_file_content: z.string().optional(),
  notes: z.string(),
});
const gateCase = z.strictObject({
  scenario_id: z.string(),
  expected_decision: z.enum(GATE_DECISIONS),
  expected_candidate_fact: z.string().optional(),
  allowed_candidate_fact_variants: z.array(z.string()).optional(),
  severity: z.enum(['core', 'boundary']),
  tags: z.array(z.string()),
});
const guardianCase = z.strictObject({
  scenario_id: z.string(),
  expected_should_write: z.boolean(),
  expected_outcome_type: z.string(),
  allowed_tool_traces: z.array(z.array(z.string())),
  expected_content_contains: z.array(z.string()).optional(),
  expected_content_not_contains: z.array(z.string()).optional(),
  tags: z.array(z.string()),
});

/** What the runner requires before it runs a case (runner.ts: the current turn, or target file, gate decision and file content). */
function checkDatasetRoot(root: string): { scenarios: number; gate: number; guardian: number } {
  const scenarios = readJsonl(fs.readFileSync(path.join(root, 'shared/scenarios.jsonl'), 'utf8')).map((x) => scenario.parse(x));
  const byId = new Map(scenarios.map((s) => [s.scenario_id, s]));
  const gate = readJsonl(fs.readFileSync(path.join(root, 'memory-gate/benchmark.jsonl'), 'utf8')).map((x) => gateCase.parse(x));
  const guardian = readJsonl(fs.readFileSync(path.join(root, 'write-guardian/benchmark.jsonl'), 'utf8')).map((x) => guardianCase.parse(x));
  for (const c of gate) {
    const s = byId.get(c.scenario_id)!;
    expect(s, c.scenario_id).toBeDefined();
    expect(Boolean(s.current_user_message) && typeof s.current_agent_reply === 'string', c.scenario_id).toBe(true);
  }
  for (const c of guardian) {
    const s = byId.get(c.scenario_id)!;
    expect(s.target_file && s.gate_decision && typeof s.current_file_content === 'string', c.scenario_id).toBeTruthy();
    expect(c.allowed_tool_traces.length).toBeGreaterThan(0);
  }
  return { scenarios: scenarios.length, gate: gate.length, guardian: guardian.length };
}

describe('held-out eval export in the plugin format', () => {
  it("the plugin's own eval files pass the checks this test applies", () => {
    const n = checkDatasetRoot(path.join(sharedDir, 'benchmarks', 'reflection-evals'));
    expect(n.gate + n.guardian).toBeGreaterThan(20);
  });

  it('writes only the validation split, with gold labels, redacted', async () => {
    const m = miniWorkspace();
    for (let i = 0; i < 10; i++) {
      m.turn(`s:${i}`, `I prefer tool number ${i} for task ${i}, mail me at user${i}@example.com.`, 'Noted.', {
        decision: 'UPDATE_USER',
        fact: `prefers tool ${i}`,
        write: { status: 'written', file: 'USER.md' },
      });
      m.turn(`s:${i}`, `Nice weather on day ${i}.`, 'Indeed.', { decision: 'NO_WRITE', reason: 'Small talk.' });
    }
    await collectSamples(m.ctx, {});
    const out = path.join(m.ws, 'evals');
    const r = await exportEvalSet(m.ctx, { outDir: out, trainSplit: 0.6, includeUnreviewed: true, includeBelowQuality: true });
    const n = checkDatasetRoot(out);
    expect(n).toEqual({ scenarios: r.scenarios, gate: r.memoryGateCases, guardian: r.writeGuardianCases });
    expect(r.memoryGateCases).toBeGreaterThan(0);
    expect(r.writeGuardianCases).toBeGreaterThan(0);
    const text = fs
      .readdirSync(out, { recursive: true })
      .filter((f) => String(f).endsWith('.jsonl'))
      .map((f) => fs.readFileSync(path.join(out, String(f)), 'utf8'))
      .join('');
    expect(text).not.toMatch(/user\d@example\.com/);
    const gate = readJsonl(fs.readFileSync(path.join(out, 'memory-gate/benchmark.jsonl'), 'utf8')) as { expected_decision: string }[];
    expect(new Set(gate.map((g) => g.expected_decision))).toEqual(new Set(['UPDATE_USER', 'NO_WRITE']));
    // held out: fewer cases than samples, and a different seed holds out other sessions
    const total = m.db.prepare("SELECT count(*) FROM dataset_samples WHERE sample_type <> 'annotated_turn'").pluck().get() as number;
    expect(r.scenarios).toBeLessThan(total);
    await expect(
      exportEvalSet(m.ctx, { outDir: path.join(m.ws, 'none'), trainSplit: 1, includeUnreviewed: true, includeBelowQuality: true }),
    ).rejects.toThrow(/no held-out samples/);
  });
});
