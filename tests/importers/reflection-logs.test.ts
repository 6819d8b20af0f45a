import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importReflectionLogs } from '../../src/core/importers';
import {
  allContexts,
  contextOf,
  count,
  dataCounts,
  guardianLogFixture,
  lines,
  newContext,
  pluginRoot,
  pluginRootDebug,
  pluginWorkspace,
  writeFile,
} from './helpers';

const SESSION = 'channel:discord:channel:1478342210';
const DAY1 = path.join(pluginRoot, 'logs', 'reflection-2026-03-10.log');

interface TurnRow {
  id: string;
  turn_number: number;
  user_message_content: string;
  agent_message_content: string;
  user_message_id: string | null;
  user_from: string | null;
  created_at: number;
}

describe('import reflection-logs', () => {
  it('rebuilds the Discord log day exactly: one session, six turns from five user messages, five decisions, one failed gate run, three writes', async () => {
    const ctx = newContext();
    const report = await importReflectionLogs(ctx, { source: pluginRoot, workspace: pluginWorkspace });
    expect(report.status).toBe('ok');
    expect(report.skippedCount).toBe(0);
    expect(report.inserted).toMatchObject({
      sessions: 1,
      conversation_turns: 6,
      memory_gate_decisions: 5,
      memory_gate_failures: 1,
      write_guardian_audit: 3,
    });

    const sessions = ctx.db.prepare('SELECT * FROM sessions').all() as Array<Record<string, unknown>>;
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({
      id: SESSION,
      channel_id: 'discord',
      conversation_target: 'channel:1478342210',
      account_id: 'default',
    });

    const turns = ctx.db.prepare('SELECT * FROM conversation_turns ORDER BY turn_number').all() as TurnRow[];
    expect(turns.map((t) => [t.user_message_content, t.agent_message_content])).toEqual([
      ['Remember that I prefer short replies, no long intros.', "Got it — I'll keep replies short and skip the intros."],
      ["What's on my calendar tomorrow?", 'Let me check your calendar.'],
      ["What's on my calendar tomorrow?", 'Tomorrow: 10:00 design review, 15:30 dentist.'],
      [
        'FYI the Mongo attempt for the ledger service failed because of multi-document transactions, so we went with Postgres.',
        "Understood — Postgres for the ledger service; I won't suggest MongoDB there again.",
      ],
      ['lol ok', '👍'],
      ["btw 'home-server' in ssh means devbox.internal", 'Noted: home-server → devbox.internal.'],
    ]);
    expect(turns.map((t) => t.turn_number)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(turns[0]).toMatchObject({
      id: '01KKBFWJCTV37E3S3E28JT97KB',
      user_message_id: '1480001112223334445',
      user_from: 'discord:channel:1478342210',
      created_at: 1773133515162,
    });

    // One user message that produced two decisions is two turns, each with its own NO_WRITE.
    const calendar = ctx.db
      .prepare(
        `SELECT t.agent_message_content AS agent, d.decision, d.reason FROM memory_gate_decisions d JOIN conversation_turns t ON t.id = d.turn_id
         WHERE t.user_message_content = ? ORDER BY t.turn_number`,
      )
      .all("What's on my calendar tomorrow?");
    expect(calendar).toEqual([
      { agent: 'Let me check your calendar.', decision: 'NO_WRITE', reason: 'Routine one-off calendar lookup; nothing durable.' },
      {
        agent: 'Tomorrow: 10:00 design review, 15:30 dentist.',
        decision: 'NO_WRITE',
        reason: 'One-off schedule information; not a stable fact.',
      },
    ]);

    // Every decision carries the configured model and nothing the logs do not hold.
    const decisions = ctx.db.prepare('SELECT * FROM memory_gate_decisions ORDER BY created_at').all() as Array<Record<string, unknown>>;
    expect(new Set(decisions.map((d) => d.llm_model))).toEqual(new Set(['x-ai/grok-4.1-fast']));
    for (const d of decisions) {
      expect(d.llm_latency_ms).toBeNull();
      expect(d.prompt_tokens).toBeNull();
      expect(d.raw_response).toBeNull();
    }
    // The 429: the plugin logs NO_WRITE, but nothing was judged: a failed gate run, not a decision.
    expect(decisions.find((d) => String(d.reason).includes('429'))).toBeUndefined();
    const failures = ctx.db.prepare('SELECT * FROM memory_gate_failures').all() as Array<Record<string, unknown>>;
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ kind: 'llm_request_failed', turn_id: turns[4]!.id, session_id: SESSION });
    expect(String(failures[0]!.reason)).toContain('429');

    const audits = ctx.db.prepare('SELECT * FROM write_guardian_audit ORDER BY created_at').all() as Array<Record<string, unknown>>;
    expect(audits.map((a) => [a.status, a.target_file])).toEqual([
      ['written', 'USER.md'],
      ['refused', 'MEMORY.md'],
      ['failed', 'TOOLS.md'],
    ]);
    expect(audits[0]).toMatchObject({
      candidate_fact: 'prefers short replies without long intros',
      source: 'plugin',
      turn_id: turns[0]!.id,
    });
    expect(audits[1]).toMatchObject({
      reason: 'MEMORY.md already records that MongoDB failed for the ledger service and Postgres was chosen; no change needed.',
      candidate_fact: 'MongoDB attempt for the ledger service failed due to multi-document transactions; Postgres was chosen instead',
      turn_id: turns[3]!.id,
    });
    expect(audits[2]).toMatchObject({
      reason: 'Lock file is already being held',
      candidate_fact: 'home-server SSH alias refers to devbox.internal',
    });
    for (const a of audits) {
      expect(a.diff).toBeNull();
      expect(a.before_snapshot_id).toBeNull();
      expect(a.llm_latency_ms).toBeNull();
      expect(a.llm_model).toBeNull();
      const decision = decisions.find((d) => d.id === a.decision_id)!;
      expect(decision.turn_id).toBe(a.turn_id);
    }
    // The audit log's candidate fact also completes the decision it belongs to.
    expect(ctx.db.prepare('SELECT candidate_fact FROM memory_gate_decisions WHERE id = ?').pluck().get(audits[1]!.decision_id)).toMatch(
      /^MongoDB attempt/,
    );

    // Context windows: the last windowSize (10) snapshots since the plugin started, current pair included.
    const windows = turns.map((t) => contextOf(ctx.db, t.id).length);
    expect(windows).toEqual([2, 4, 5, 7, 9, 10]);
    const last = contextOf(ctx.db, turns[5]!.id);
    expect(last[0]).toEqual({ role: 'agent', message: "Got it — I'll keep replies short and skip the intros." });
    expect(last.at(-1)).toEqual({ role: 'agent', message: 'Noted: home-server → devbox.internal.' });

    // The canonicalization mapping links OpenClaw's key to the same session.
    expect(
      ctx.db.prepare('SELECT session_id FROM session_aliases WHERE alias = ?').pluck().get('agent:main:discord:channel:1478342210'),
    ).toBe(SESSION);
    expect(ctx.db.prepare('SELECT status FROM import_runs').pluck().all()).toEqual(['ok']);
  });

  it('continues on the next day with the model configured the day before, a fresh buffer, and adds nothing when run again', async () => {
    const ctx = newContext();
    await importReflectionLogs(ctx, { source: pluginRoot, workspace: pluginWorkspace });
    const day2 = await importReflectionLogs(ctx, { source: pluginRootDebug, workspace: pluginWorkspace });
    expect(day2.inserted).toMatchObject({ conversation_turns: 1, memory_gate_decisions: 1, write_guardian_audit: 1 });
    expect(day2.inserted.sessions).toBeUndefined();
    expect(day2.notes.join(' ')).toMatch(/debug\.json was left as it is/);
    const turn = ctx.db.prepare('SELECT * FROM conversation_turns WHERE turn_number = 6').get() as TurnRow;
    expect(turn).toMatchObject({ user_message_content: 'Call me Siro from now on.', agent_message_content: 'Sure, Siro.' });
    // The debug line says memory_gate saw 2 recent messages: the session buffer was new.
    expect(contextOf(ctx.db, turn.id)).toHaveLength(2);
    expect(ctx.db.prepare('SELECT llm_model FROM memory_gate_decisions WHERE turn_id = ?').pluck().get(turn.id)).toBe('x-ai/grok-4.1-fast');
    expect(ctx.db.prepare('SELECT candidate_fact FROM write_guardian_audit WHERE turn_id = ?').pluck().get(turn.id)).toBe(
      'prefers to be called Siro',
    );

    const before = dataCounts(ctx.db);
    const again1 = await importReflectionLogs(ctx, { source: pluginRoot, workspace: pluginWorkspace });
    const again2 = await importReflectionLogs(ctx, { source: pluginRootDebug, workspace: pluginWorkspace });
    expect(again1.status).toBe('nothing_new');
    expect(again2.status).toBe('nothing_new');
    expect(again1.inserted).toEqual({});
    expect(dataCounts(ctx.db)).toEqual(before);
    // Runs that found nothing new are not recorded.
    expect(ctx.db.prepare('SELECT status FROM import_runs ORDER BY started_at').pluck().all()).toEqual(['ok', 'ok']);
  });

  it('reads incrementally as the log grows line by line, leaving a half-written last line for the next run', async () => {
    const ctx = newContext();
    const logs = path.join(ctx.workspaceDir, 'plugin', 'logs');
    const log = path.join(logs, 'reflection-2026-03-10.log');
    const guardianLog = path.join(ctx.workspaceDir, '.openclaw-reflection', 'write-guardian.log.jsonl');
    const all = lines(DAY1);
    const audit = lines(guardianLogFixture);

    writeFile(log, `${all.slice(0, 30).join('\n')}\n`);
    writeFile(guardianLog, `${audit[0]}\n`);
    const first = await importReflectionLogs(ctx, { source: path.dirname(logs) });
    expect(first.inserted.conversation_turns).toBe(3);

    // Append the next lines, the last one cut in the middle (the plugin is still writing it).
    const half = all[40]!.slice(0, 50);
    fs.appendFileSync(log, `${all.slice(30, 40).join('\n')}\n${half}`);
    fs.appendFileSync(guardianLog, `${audit[1]}\n`);
    const second = await importReflectionLogs(ctx, { source: path.dirname(logs) });
    expect(second.pending).toEqual([expect.objectContaining({ file: log, line: 41 })]);
    expect(second.skippedCount).toBe(0);
    expect(second.files.find((f) => f.path === log)!.fromOffset).toBeGreaterThan(0);

    fs.appendFileSync(log, `${all[40]!.slice(50)}\n${all.slice(41).join('\n')}\n`);
    fs.appendFileSync(guardianLog, `${audit[2]}\n`);
    const third = await importReflectionLogs(ctx, { source: path.dirname(logs) });
    expect(third.skippedCount).toBe(0);
    expect(third.pending).toEqual([]);

    // Same result as one import of the whole day.
    const whole = newContext();
    await importReflectionLogs(whole, { source: pluginRoot, workspace: pluginWorkspace });
    expect(dataCounts(ctx.db)).toEqual(dataCounts(whole.db));
    const facts = (db: typeof ctx.db) => db.prepare('SELECT status, candidate_fact FROM write_guardian_audit ORDER BY created_at').all();
    expect(facts(ctx.db)).toEqual(facts(whole.db));
    expect(allContexts(ctx.db)).toEqual(allContexts(whole.db));
  });

  it('reads a file again from the start when it was truncated or replaced, without duplicating rows', async () => {
    const ctx = newContext();
    const log = path.join(ctx.workspaceDir, 'logs', 'reflection-2026-03-10.log');
    const all = lines(DAY1);
    writeFile(log, `${all.join('\n')}\n`);
    await importReflectionLogs(ctx, { source: path.dirname(log), workspace: pluginWorkspace });
    const before = dataCounts(ctx.db);
    writeFile(log, `${all.slice(0, 20).join('\n')}\n`);
    const r = await importReflectionLogs(ctx, { source: path.dirname(log), workspace: pluginWorkspace });
    expect(r.files.find((f) => f.path === log)!.restarted).toBe(true);
    expect(r.notes.join(' ')).toMatch(/read again from the start/);
    expect(dataCounts(ctx.db)).toEqual(before);
  });

  it('runs concurrent imports (the watcher and a manual import) one after the other', async () => {
    const ctx = newContext();
    const [a, b] = await Promise.all([
      importReflectionLogs(ctx, { source: pluginRoot, workspace: pluginWorkspace }),
      importReflectionLogs(ctx, { source: pluginRoot, workspace: pluginWorkspace }),
    ]);
    expect(a.inserted.conversation_turns).toBe(6);
    expect(b.status).toBe('nothing_new');
    expect(count(ctx.db, 'conversation_turns')).toBe(6);
  });

  it('takes a baseline snapshot of the memory files at import, so later diffs have a start', async () => {
    const ctx = newContext();
    writeFile(path.join(ctx.workspaceDir, 'USER.md'), '# User\n- prefers short replies\n');
    await importReflectionLogs(ctx, { source: pluginRoot, workspace: pluginWorkspace });
    expect(ctx.db.prepare("SELECT content FROM file_snapshots WHERE file_name = 'USER.md'").pluck().all()).toEqual([
      '# User\n- prefers short replies\n',
    ]);
    expect(count(ctx.db, "file_state WHERE file_name = 'USER.md' AND snapshot_id IS NOT NULL")).toBe(1);
  });
});
