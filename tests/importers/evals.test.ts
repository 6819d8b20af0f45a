import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importEvals } from '../../src/main/services/importers';
import { count, dataCounts, evalsDir, newContext, writeFile } from './helpers';

describe('import evals', () => {
  it('turns the 32 scenarios into 18 memory_gate and 14 write_guardian gold samples, and adds nothing the second time', async () => {
    const ctx = newContext();
    const report = await importEvals(ctx, { source: evalsDir });
    expect(report.status).toBe('ok');
    expect(report.skippedCount).toBe(0);
    expect(report.inserted).toMatchObject({ dataset_samples: 32, conversation_turns: 18, sessions: 32 });
    const byType = Object.fromEntries(
      (ctx.db.prepare('SELECT sample_type, count(*) AS n FROM dataset_samples GROUP BY 1').all() as Array<{ sample_type: string; n: number }>).map((r) => [r.sample_type, r.n]),
    );
    expect(byType).toEqual({ annotated_turn: 18, write_guardian_decision: 14 });
    expect(count(ctx.db, "dataset_samples WHERE collection_strategy = 'gold_eval' AND annotation_status = 'approved'")).toBe(32);

    const gate = ctx.db.prepare("SELECT * FROM dataset_samples WHERE source_key = 'gold_eval:memory_gate:mg2_user_prefers_brutal_honesty'").get() as Record<string, string>;
    const content = JSON.parse(gate.content);
    expect(content.memoryGate.output).toEqual({ decision: 'UPDATE_USER', candidateFact: 'prefers direct technical feedback' });
    expect(content.memoryGate.allowedCandidateFactVariants).toContain('wants direct technical feedback');
    const turn = ctx.db.prepare('SELECT * FROM conversation_turns WHERE id = ?').get(gate.turn_id) as Record<string, string>;
    expect(turn).toMatchObject({ session_id: 'eval:mg2_user_prefers_brutal_honesty', user_message_content: '你就按很直接的 code review 风格来。' });
    expect(ctx.db.prepare('SELECT role || \':\' || message FROM conversation_contexts WHERE turn_id = ? ORDER BY sequence_number').pluck().all(gate.turn_id)).toEqual([
      'user:以后别太委婉，问题直接指出来。',
      'agent:可以，我会直接指出问题和风险。',
      'user:你就按很直接的 code review 风格来。',
      'agent:后续我会保持直接、明确的技术反馈。',
    ]);

    const wg = JSON.parse(ctx.db.prepare("SELECT content FROM dataset_samples WHERE source_key = 'gold_eval:write_guardian:wg_user_refuse_one_off_emotion'").pluck().get() as string);
    expect(wg).toMatchObject({
      type: 'write_guardian_decision',
      candidateFact: 'feels annoyed today',
      targetFile: 'USER.md',
      currentFileContent: '# USER\n\n## Preferences\n- prefers Chinese by default\n',
      decision: 'refused',
    });
    // UPDATE_TOOLS is part of the decision enum and comes in like the others.
    expect(count(ctx.db, "dataset_samples WHERE json_extract(content, '$.memoryGate.output.decision') = 'UPDATE_TOOLS'")).toBeGreaterThan(0);

    const before = dataCounts(ctx.db);
    const again = await importEvals(ctx, { source: evalsDir });
    expect(again.status).toBe('nothing_new');
    expect(again.inserted).toEqual({});
    expect(dataCounts(ctx.db)).toEqual(before);
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
    writeFile(path.join(dir, 'memory-gate', 'benchmark.jsonl'), `${JSON.stringify({ scenario_id: 'a', expected_decision: 'NO_WRITE' })}\n${JSON.stringify({ scenario_id: 'z', expected_decision: 'NO_WRITE' })}\n`);
    writeFile(path.join(dir, 'write-guardian', 'benchmark.jsonl'), `${JSON.stringify({ scenario_id: 'c', expected_should_write: true })}\n`);
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
