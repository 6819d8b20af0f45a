// The real openclaw-reflection plugin (main, e4d08c9) under delays, interleaved sessions, a restart,
// duplicate snapshots, a guardian outage, a gate LLM failure and a consolidation run; the workbench's
// importer and live capture read what it wrote. Skips with a message when no checkout is found.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { importReflectionLogs } from '../../src/core/importers';
import { startLiveCapture } from '../../src/core/lifecycle/live';
import { tempWorkspace } from '../helpers/workspace';
import {
  MISSING_PLUGIN,
  activatePlugin,
  appendFact,
  countEvents,
  pluginRoot,
  pluginSource,
  startMockLlm,
  until,
  type GateRule,
  type MockLlm,
  type TestSession,
} from './harness';

const source = pluginSource('main');
if (!source) console.warn(MISSING_PLUGIN('main'));

const S1: TestSession = { channelId: 'discord', target: 'channel:100' };
// Two-part targets: the plugin derives the same canonical key from OpenClaw's agent session key.
const S2: TestSession = { channelId: 'telegram', target: 'group:200' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The mock gate names the reply it judged in its reason, so attribution can be checked exactly. */
const judged =
  (decision: 'NO_WRITE' | 'UPDATE_USER' | 'UPDATE_MEMORY', delayMs: number, fact?: string): ((reply: string) => GateRule) =>
  (reply) => ({ delayMs, answer: { decision, reason: `judged: ${reply}`, ...(fact ? { candidate_fact: fact } : {}) } });

let llm: MockLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

function context(workspaceDir: string): { db: DB; workspaceDir: string } {
  return { db: openWorkspaceDatabase(workspaceDir).db, workspaceDir };
}

/** Every decision with the reply of the turn it was attributed to. */
function attribution(db: DB): Array<{ reply: string; reason: string; decision: string }> {
  return db
    .prepare(
      'SELECT t.agent_message_content AS reply, d.reason, d.decision FROM memory_gate_decisions d JOIN conversation_turns t ON t.id = d.turn_id ORDER BY d.created_at',
    )
    .all() as Array<{ reply: string; reason: string; decision: string }>;
}

describe.skipIf(!source)('the real plugin (main) through the importer and live capture', () => {
  it('delayed gates and interleaved sessions: every decision and write lands on the reply it judged', async () => {
    const workspace = tempWorkspace('plugin-ws-');
    fs.writeFileSync(path.join(workspace, 'USER.md'), '# USER\n');
    const rules: Record<string, (reply: string) => GateRule> = {
      'Noted. Let me check your settings.': judged('UPDATE_USER', 1000, 'prefers British English'),
      'Done: British English from now on.': judged('NO_WRITE', 800),
      'Got it, bluebird is staging.': judged('UPDATE_MEMORY', 700, 'bluebird is the staging box'),
      "You're welcome.": judged('NO_WRITE', 200),
    };
    llm = await startMockLlm({
      gate: (reply) => {
        const rule = rules[reply];
        if (!rule) throw new Error(`no gate rule for the reply ${reply}`);
        return rule(reply);
      },
      guardian: appendFact,
    });
    const root = pluginRoot(source!);
    const live = context(workspace);
    const capture = startLiveCapture(live, { pluginRoot: root, pollIntervalMs: 100 });
    const plugin = await activatePlugin({ root, llmUrl: llm.url, workspaceDir: workspace });

    plugin.userMessage(S1, 'I always want answers in British English.', 'm-1');
    plugin.assistantMessage(S1, 'Noted. Let me check your settings.'); // text + tool call
    plugin.userMessage(S2, 'Remember the staging box is called bluebird.', 't-1');
    await sleep(300);
    plugin.assistantMessage(S1, 'Done: British English from now on.'); // final reply, 300 ms later
    plugin.assistantMessage(S2, 'Got it, bluebird is staging.');
    // S1's second run is in the gate: a new user message and reply arrive meanwhile.
    await until(() => llm!.gateCalls.some((c) => c.reply === 'Done: British English from now on.'), 10_000, 'the second run of S1');
    plugin.userMessage(S1, 'thanks', 'm-2');
    plugin.assistantMessage(S1, "You're welcome.");
    await until(
      () =>
        countEvents(plugin.logsDir, 'memory_gate decision evaluated') === 4 &&
        countEvents(plugin.logsDir, 'write_guardian applied update') === 2,
      20_000,
      'four decisions and two writes',
    );

    // The plugin's own view: each run judged the reply that queued it (no reply arrived while one waited).
    expect(llm.gateCalls.map((c) => c.reply).sort()).toEqual([
      'Done: British English from now on.',
      'Got it, bluebird is staging.',
      'Noted. Let me check your settings.',
      "You're welcome.",
    ]);
    const imported = context(tempWorkspace('plugin-db-'));
    const report = await importReflectionLogs(imported, { source: root, workspace });
    expect(report.skippedCount).toBe(0);
    await capture.sync();
    await capture.stop();
    for (const db of [imported.db, live.db]) {
      const rows = attribution(db);
      expect(rows).toHaveLength(4);
      for (const r of rows) expect(r.reason).toBe(`judged: ${r.reply}`);
      const writes = db
        .prepare(
          "SELECT t.agent_message_content AS reply, a.target_file AS file, a.candidate_fact AS fact FROM write_guardian_audit a JOIN conversation_turns t ON t.id = a.turn_id WHERE a.source = 'plugin' ORDER BY a.target_file",
        )
        .all();
      expect(writes).toEqual([
        { reply: 'Got it, bluebird is staging.', file: 'MEMORY.md', fact: 'bluebird is the staging box' },
        { reply: 'Noted. Let me check your settings.', file: 'USER.md', fact: 'prefers British English' },
      ]);
    }
    // Live capture also has the real diff of the write on the turn it belongs to.
    const diff = live.db
      .prepare("SELECT a.diff FROM write_guardian_audit a WHERE a.source = 'plugin' AND a.target_file = 'USER.md'")
      .pluck()
      .get() as string;
    expect(diff).toContain('+- prefers British English');
  });

  it('a restart mid-queue: queued runs are recorded as lost, later replies keep their own decisions', async () => {
    const workspace = tempWorkspace('plugin-ws-');
    let slow = true;
    llm = await startMockLlm({ gate: (reply) => judged('NO_WRITE', slow ? 60_000 : 100)(reply) });
    const root = pluginRoot(source!);
    const first = await activatePlugin({ root, llmUrl: llm.url, workspaceDir: workspace });
    first.userMessage(S1, 'hello', 'm-1');
    first.assistantMessage(S1, 'Hi! Working on it.');
    await sleep(50);
    first.assistantMessage(S1, 'Still working.');
    await until(() => llm!.gateCalls.length === 1, 5000, 'the first gate call');
    // The gateway restarts: the first process's runs never finish (its requests hang forever here).
    slow = false;
    const second = await activatePlugin({ root, llmUrl: llm.url, workspaceDir: workspace });
    second.userMessage(S1, 'are you there?', 'm-2');
    second.assistantMessage(S1, 'Yes, back now.');
    await until(() => countEvents(second.logsDir, 'memory_gate decision evaluated') === 1, 5000, 'the decision after the restart');

    const ctx = context(tempWorkspace('plugin-db-'));
    await importReflectionLogs(ctx, { source: root, workspace });
    expect(attribution(ctx.db)).toEqual([{ reply: 'Yes, back now.', reason: 'judged: Yes, back now.', decision: 'NO_WRITE' }]);
    const lost = ctx.db
      .prepare(
        "SELECT t.agent_message_content FROM memory_gate_failures f JOIN conversation_turns t ON t.id = f.turn_id WHERE f.kind = 'lost_in_restart' ORDER BY t.turn_number",
      )
      .pluck()
      .all();
    expect(lost).toEqual(['Hi! Working on it.', 'Still working.']);
  });

  it('duplicate snapshots fold into one turn with both runs; a burst of replies; a gate LLM failure is a failed run', async () => {
    const workspace = tempWorkspace('plugin-ws-');
    llm = await startMockLlm({
      gate: (reply) => (reply === 'Sorry, one moment.' ? { status: 503, delayMs: 50 } : judged('NO_WRITE', 150)(reply)),
    });
    const root = pluginRoot(source!);
    const plugin = await activatePlugin({ root, llmUrl: llm.url, workspaceDir: workspace });
    const decisions = () => countEvents(plugin.logsDir, 'memory_gate decision evaluated');
    plugin.userMessage(S2, 'What is the staging box called again?', 't-2');
    plugin.assistantMessage(S2, "It's bluebird. Done.");
    plugin.assistantMessage(S2, "It's bluebird. Done."); // the hook fires twice for one reply
    await until(() => decisions() === 2, 10_000, 'two runs');
    plugin.assistantMessage(S2, 'Done.'); // contained in the earlier reply, but a reply of its own
    await until(() => decisions() === 3, 10_000, 'three runs');
    // Three replies while one run is in the gate: the queued runs read the latest reply when they start.
    plugin.userMessage(S2, 'and prod?', 't-3');
    plugin.assistantMessage(S2, 'Checking prod.');
    await sleep(10); // hooks arrive on separate ticks, as OpenClaw's do
    plugin.assistantMessage(S2, 'Prod is kingfisher.');
    await sleep(10);
    plugin.assistantMessage(S2, 'Anything else?');
    await until(() => decisions() === 6, 10_000, 'six runs');
    plugin.userMessage(S2, 'no', 't-4');
    plugin.assistantMessage(S2, 'Sorry, one moment.');
    await until(() => decisions() === 7, 10_000, 'seven runs');
    expect(llm.gateCalls.map((c) => c.reply).slice(3, 6)).toEqual(['Checking prod.', 'Anything else?', 'Anything else?']);

    const ctx = context(tempWorkspace('plugin-db-'));
    const report = await importReflectionLogs(ctx, { source: root, workspace });
    expect(report.skippedCount).toBe(0);
    expect(report.ignored['repeated snapshots of the same reply (the hook fired twice)']).toBe(1);
    expect(report.ignored['turns already imported from OpenClaw transcripts']).toBeUndefined();
    expect(ctx.db.prepare('SELECT agent_message_content FROM conversation_turns ORDER BY turn_number').pluck().all()).toEqual([
      "It's bluebird. Done.",
      'Done.',
      'Checking prod.',
      'Prod is kingfisher.',
      'Anything else?',
      'Sorry, one moment.',
    ]);
    const rows = attribution(ctx.db);
    expect(rows).toHaveLength(6);
    for (const r of rows) expect(r.reason).toBe(`judged: ${r.reply}`);
    const failure = ctx.db
      .prepare(
        'SELECT f.kind, f.reason, t.agent_message_content AS reply FROM memory_gate_failures f JOIN conversation_turns t ON t.id = f.turn_id',
      )
      .get();
    expect(failure).toMatchObject({
      kind: 'llm_request_failed',
      reply: 'Sorry, one moment.',
      reason: expect.stringContaining('status 503'),
    });
    expect(ctx.db.prepare('SELECT sum(no_write_count) FROM memory_gate_stats').pluck().get()).toBe(6);
  });

  it('a guardian outage is recorded as the outcome of the decision it dropped', async () => {
    llm = await startMockLlm({ gate: judged('UPDATE_USER', 50, 'prefers British English') });
    const root = pluginRoot(source!);
    const plugin = await activatePlugin({ root, llmUrl: llm.url }); // no workspace: write_guardian is unavailable
    plugin.userMessage(S1, 'British English, please.', 'm-1');
    plugin.assistantMessage(S1, 'Will do.');
    await until(() => countEvents(plugin.logsDir, 'UPDATE_* skipped because write_guardian is unavailable') === 1, 5000, 'the outage line');
    const ctx = context(tempWorkspace('plugin-db-'));
    await importReflectionLogs(ctx, { source: root });
    expect(ctx.db.prepare('SELECT decision, outcome FROM memory_gate_decisions').all()).toEqual([
      { decision: 'UPDATE_USER', outcome: 'guardian_unavailable' },
    ]);
    expect(ctx.db.prepare('SELECT count(*) FROM write_guardian_audit').pluck().get()).toBe(0);
  });

  it('a consolidation run: live capture records its rewrite as a consolidation write', async () => {
    const workspace = tempWorkspace('plugin-ws-');
    fs.writeFileSync(path.join(workspace, 'MEMORY.md'), '# MEMORY\n\n## Notes\n- staging is bluebird\n- staging box is bluebird\n');
    llm = await startMockLlm({
      gate: judged('NO_WRITE', 10),
      consolidation: () => ({ 'MEMORY.md': [{ section: 'Notes', action: 'replace', content: '- staging box is bluebird' }] }),
    });
    const root = pluginRoot(source!);
    const plugin = await activatePlugin({ root, llmUrl: llm.url, workspaceDir: workspace });
    const ctx = context(workspace);
    const capture = startLiveCapture(ctx, { pluginRoot: root, pollIntervalMs: 100 });
    await capture.sync();
    // The scheduler fires once a day; run the plugin's own scheduler code now, with its own logger.
    const { ConsolidationScheduler } = (await import(/* @vite-ignore */ path.join(plugin.srcDir, 'consolidation', 'index.ts'))) as {
      ConsolidationScheduler: new (...a: unknown[]) => { runConsolidation(): Promise<void> };
    };
    const { FileLogger } = (await import(/* @vite-ignore */ path.join(plugin.srcDir, 'logger.ts'))) as {
      FileLogger: new (root: string, level: string) => unknown;
    };
    const { LLMService } = (await import(/* @vite-ignore */ path.join(plugin.srcDir, 'llm', 'service.ts'))) as {
      LLMService: new (c: unknown) => unknown;
    };
    const scheduler = new ConsolidationScheduler(
      { workspaceDir: workspace, schedule: '0 2 * * *' },
      new FileLogger(root, 'info'),
      new LLMService({ baseURL: llm.url, apiKey: 'k', model: 'mock/gate-model' }),
    );
    await scheduler.runConsolidation();
    expect(fs.readFileSync(path.join(workspace, 'MEMORY.md'), 'utf8')).not.toContain('staging is bluebird');
    await until(
      () =>
        (ctx.db
          .prepare("SELECT count(*) FROM write_guardian_audit WHERE json_extract(metadata, '$.origin') = 'consolidation'")
          .pluck()
          .get() as number) === 1,
      5000,
      'the consolidation write',
    );
    await capture.stop();
    const write = ctx.db
      .prepare("SELECT target_file, source, diff FROM write_guardian_audit WHERE json_extract(metadata, '$.origin') = 'consolidation'")
      .get() as { target_file: string; source: string; diff: string };
    expect(write.target_file).toBe('MEMORY.md');
    expect(write.source).toBe('consolidation');
    expect(write.diff).toContain('-- staging is bluebird');
  });
});
