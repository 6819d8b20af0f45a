// Deterministic checks of how plugin log events are attributed, on a synthetic log written event by
// event the way the plugin's FileLogger writes them (tests/fixtures/plugin-logs). The same
// situations are driven through the real plugin in tests/plugin/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectSamples } from '../../src/core/dataset';
import { importReflectionLogs } from '../../src/core/importers';
import { saveState } from '../../src/core/importers/cursors';
import { RecorderCore } from '../../src/core/recorder/recorder';
import { startLiveCapture } from '../../src/core/lifecycle/live';
import { count, dataCounts, lines, newContext, writeFile } from './helpers';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'plugin-logs');
const LOG = path.join(FIXTURE, 'logs', 'reflection-2026-03-20.log');
const AUDIT_LOG = path.join(FIXTURE, 'workspace', '.openclaw-reflection', 'write-guardian.log.jsonl');
const S1 = 'channel:discord:channel:100';
const S2 = 'channel:telegram:200';

/** A plugin root and workspace in the test's own folder, holding the first `upTo` log lines. */
function copyFixture(dir: string, upTo?: number): { root: string; log: string } {
  const root = path.join(dir, 'plugin');
  const log = writeFile(path.join(root, 'logs', path.basename(LOG)), lines(LOG).slice(0, upTo).join('\n') + '\n');
  writeFile(path.join(dir, '.openclaw-reflection', 'write-guardian.log.jsonl'), fs.readFileSync(AUDIT_LOG));
  return { root, log };
}

function decisionsByReply(ctx: ReturnType<typeof newContext>, session: string): Array<[string, string[]]> {
  const rows = ctx.db
    .prepare(
      `SELECT t.agent_message_content AS reply, group_concat(d.decision || ':' || d.reason, '|') AS decisions
       FROM conversation_turns t LEFT JOIN (SELECT * FROM memory_gate_decisions ORDER BY created_at) d ON d.turn_id = t.id
       WHERE t.session_id = ? GROUP BY t.id ORDER BY t.turn_number`,
    )
    .all(session) as Array<{ reply: string; decisions: string | null }>;
  return rows.map((r) => [r.reply, r.decisions ? r.decisions.split('|') : []]);
}

describe('reflection-logs attribution (synthetic plugin log)', () => {
  it('gives every decision and write outcome to the reply that queued its gate run, first in first out per session', async () => {
    const ctx = newContext();
    const { root } = copyFixture(ctx.workspaceDir);
    const report = await importReflectionLogs(ctx, { source: root });
    expect(report.skipped.map((s) => s.reason)).toEqual([expect.stringContaining('no agent reply waiting')]);

    // 1 s gate, second reply 300 ms later: each reply gets its own decision, not the latest both.
    expect(decisionsByReply(ctx, S1)).toEqual([
      ['Noted. Let me check your settings.', ['UPDATE_USER:Stable language preference.']],
      ['Done: British English from now on.', ['NO_WRITE:Confirmation of an earlier turn.']],
      // A new user message arrived while the run above was in the gate: its decision is still its own.
      ["You're welcome.", ['NO_WRITE:Small talk.']],
      ['Timezone set to Europe/London.', []], // its run threw: a failed run, not a decision
      ['Anything else?', ['UPDATE_USER:Stable timezone.']],
      ['Sure, Sam.', []], // queued when the plugin restarted: never judged
    ]);
    const audits = ctx.db
      .prepare(
        'SELECT a.status, a.target_file, a.candidate_fact, t.agent_message_content AS reply FROM write_guardian_audit a JOIN conversation_turns t ON t.id = a.turn_id ORDER BY a.created_at',
      )
      .all();
    expect(audits).toEqual([
      { status: 'written', target_file: 'USER.md', candidate_fact: 'prefers British English', reply: 'Noted. Let me check your settings.' },
      {
        status: 'refused',
        target_file: 'TOOLS.md',
        candidate_fact: 'bluebird refers to the staging box',
        reply: 'Got it, bluebird is staging.',
      },
    ]);
    // Interleaved session: its own decisions, in its own order.
    expect(decisionsByReply(ctx, S2)).toEqual([
      ['Got it, bluebird is staging.', ['UPDATE_TOOLS:Environment-specific host alias.']],
      ["It's bluebird. Done.", ['NO_WRITE:Recall, nothing new.', 'NO_WRITE:Same reply again.']],
      ['Done.', []],
    ]);
  });

  it('a run queued behind another judges the latest reply when it starts (three replies during one gate run)', async () => {
    const ctx = newContext();
    const key = 'channel:discord:channel:300';
    const at = (ms: number) => new Date(Date.UTC(2026, 2, 21, 9) + ms).toISOString();
    const snap = (ms: number, role: string, message: string, id: string) =>
      JSON.stringify({
        timestamp: at(ms),
        level: 'info',
        component: 'MessageHandler',
        event: 'Buffer message snapshot',
        details: {
          hookName: role === 'user' ? 'message:received' : 'before_message_write',
          bufferMessage: { id, role, message, timestamp: Date.parse(at(ms)), sessionKey: key, channelId: 'discord', metadata: {} },
        },
        sessionKey: key,
      });
    const decision = (ms: number, reason: string) =>
      JSON.stringify({
        timestamp: at(ms),
        level: 'info',
        component: 'MessageHandler',
        event: 'memory_gate decision evaluated',
        details: { decision: 'NO_WRITE', reason, hasCandidateFact: false },
        sessionKey: key,
      });
    const root = path.join(ctx.workspaceDir, 'plugin');
    writeFile(
      path.join(root, 'logs', 'reflection-2026-03-21.log'),
      [
        snap(0, 'user', 'and prod?', '01KM6A0000000000000000000U'),
        snap(100, 'agent', 'Checking prod.', '01KM6A0000000000000000000A'),
        snap(120, 'agent', 'Prod is kingfisher.', '01KM6A0000000000000000000B'),
        snap(140, 'agent', 'Anything else?', '01KM6A0000000000000000000C'),
        decision(1100, 'judged: Checking prod.'),
        decision(2100, 'judged: Anything else?'),
        decision(3100, 'judged: Anything else?'),
      ].join('\n') + '\n',
    );
    await importReflectionLogs(ctx, { source: root });
    expect(decisionsByReply(ctx, key)).toEqual([
      ['Checking prod.', ['NO_WRITE:judged: Checking prod.']],
      ['Prod is kingfisher.', []],
      ['Anything else?', ['NO_WRITE:judged: Anything else?', 'NO_WRITE:judged: Anything else?']],
    ]);
  });

  it('continues from state saved by the previous version (no gate queue in it) without failing', async () => {
    const ctx = newContext();
    const { root } = copyFixture(ctx.workspaceDir);
    saveState(
      ctx.db,
      'reflection-logs',
      { model: 'old/model', windowSize: 10, sessions: { [S1]: { window: [], lastTurnId: 'gone', lastAt: Date.UTC(2026, 2, 20) } } },
      0,
    );
    const report = await importReflectionLogs(ctx, { source: root });
    expect(report.skippedCount).toBe(1); // only the fixture's orphan decision after the restart
    expect(count(ctx.db, 'memory_gate_decisions')).toBe(7);
  });

  it('folds only a true duplicate snapshot and names why; a shorter later reply stays its own turn', async () => {
    const ctx = newContext();
    const { root } = copyFixture(ctx.workspaceDir);
    const report = await importReflectionLogs(ctx, { source: root });
    expect(report.ignored['repeated snapshots of the same reply (the hook fired twice)']).toBe(1);
    expect(report.ignored['turns already imported from OpenClaw transcripts']).toBeUndefined();
    const replies = ctx.db
      .prepare('SELECT agent_message_content FROM conversation_turns WHERE session_id = ? ORDER BY turn_number')
      .pluck()
      .all(S2);
    expect(replies).toEqual(['Got it, bluebird is staging.', "It's bluebird. Done.", 'Done.']);
  });

  it('records a gate LLM failure, a throwing run and a restart as failed runs, and a guardian outage as the outcome', async () => {
    const ctx = newContext();
    const { root } = copyFixture(ctx.workspaceDir);
    await importReflectionLogs(ctx, { source: root });
    const failures = ctx.db
      .prepare(
        'SELECT f.kind, f.reason, t.agent_message_content AS reply FROM memory_gate_failures f JOIN conversation_turns t ON t.id = f.turn_id ORDER BY f.created_at',
      )
      .all();
    expect(failures).toEqual([
      { kind: 'llm_request_failed', reason: 'LLM request failed: Provider request failed with status 503', reply: 'Done.' },
      { kind: 'trigger_failed', reason: 'socket hang up', reply: 'Timezone set to Europe/London.' },
      { kind: 'lost_in_restart', reason: expect.stringContaining('restarted'), reply: 'Sure, Sam.' },
    ]);
    // Not a NO_WRITE anywhere: neither in decisions nor in the stats view.
    expect(count(ctx.db, "memory_gate_decisions WHERE reason LIKE 'LLM request failed%'")).toBe(0);
    expect(ctx.db.prepare('SELECT sum(no_write_count) FROM memory_gate_stats').pluck().get()).toBe(4);
    expect(ctx.db.prepare("SELECT outcome FROM memory_gate_decisions WHERE reason = 'Stable timezone.'").pluck().get()).toBe(
      'guardian_unavailable',
    );
    expect(
      count(
        ctx.db,
        "write_guardian_audit WHERE turn_id IN (SELECT id FROM conversation_turns WHERE agent_message_content = 'Anything else?')",
      ),
    ).toBe(0);
  });

  it('folds a snapshot into the transcript turn of the same reply (exact text first), naming the reason', async () => {
    const ctx = newContext();
    const { root } = copyFixture(ctx.workspaceDir);
    // What an OpenClaw transcript import made of S2's second exchange: one turn per reply.
    const core = new RecorderCore(ctx.db);
    core.upsertSession({ id: S2, channelId: 'telegram', createdAt: 1, lastActivityAt: 1 });
    const at = Date.parse('2026-03-20T09:00:05.100Z');
    const user = { content: 'What is the staging box called again?' };
    const bluebird = core.insertTurn({
      sessionId: S2,
      userMessage: user,
      agentReply: { content: "It's bluebird. Done." },
      createdAt: at,
    }).id;
    const done = core.insertTurn({ sessionId: S2, userMessage: user, agentReply: { content: 'Done.' }, createdAt: at + 1100 }).id;
    const report = await importReflectionLogs(ctx, { source: root });
    expect(report.ignored['turns already imported from OpenClaw transcripts']).toBe(2);
    const on = (turn: string) =>
      ctx.db.prepare('SELECT reason FROM memory_gate_decisions WHERE turn_id = ? ORDER BY created_at').pluck().all(turn);
    expect(on(bluebird)).toEqual(['Recall, nothing new.', 'Same reply again.']);
    expect(ctx.db.prepare('SELECT kind FROM memory_gate_failures WHERE turn_id = ?').pluck().all(done)).toEqual(['llm_request_failed']);
  });

  it('a failed gate run never becomes a training sample, also when it was stored as NO_WRITE before', async () => {
    const ctx = newContext();
    const { root } = copyFixture(ctx.workspaceDir);
    await importReflectionLogs(ctx, { source: root });
    // A database imported by an older version holds the failure as a NO_WRITE decision.
    const turn = ctx.db.prepare("SELECT id, session_id FROM conversation_turns WHERE agent_message_content = 'Done.'").get() as {
      id: string;
      session_id: string;
    };
    ctx.db
      .prepare(
        `INSERT INTO memory_gate_decisions (id, turn_id, session_id, decision, reason, llm_model, source, created_at)
      VALUES ('old-failure', ?, ?, 'NO_WRITE', 'LLM request failed: Provider request failed with status 429', 'm', 'import:reflection-logs', 1773997208101)`,
      )
      .run(turn.id, turn.session_id);
    await collectSamples(ctx, { autoApprove: true });
    expect(count(ctx.db, 'dataset_samples')).toBeGreaterThan(0);
    expect(count(ctx.db, "dataset_samples WHERE decision_id = 'old-failure'")).toBe(0);
    expect(count(ctx.db, "dataset_samples WHERE content LIKE '%LLM request failed%'")).toBe(0);
  });

  it('records the files a consolidation run rewrote as consolidation writes, not anonymous external ones', async () => {
    const ctx = newContext();
    fs.writeFileSync(path.join(ctx.workspaceDir, 'MEMORY.md'), '# Memory\n\n- old fact\n- old fact, again\n');
    fs.writeFileSync(path.join(ctx.workspaceDir, 'USER.md'), '# User\n');
    const cut = lines(LOG).findIndex((l) => l.includes('Consolidation cleanup completed'));
    const { root, log } = copyFixture(ctx.workspaceDir, cut);
    await importReflectionLogs(ctx, { source: root });
    // The plugin rewrites the file right after the line; the user also edits USER.md by hand.
    fs.writeFileSync(path.join(ctx.workspaceDir, 'MEMORY.md'), '# Memory\n\n- old fact\n');
    fs.writeFileSync(path.join(ctx.workspaceDir, 'USER.md'), '# User\n\n- edited by hand\n');
    fs.writeFileSync(log, lines(LOG).join('\n') + '\n');
    await importReflectionLogs(ctx, { source: root });
    const writes = ctx.db
      .prepare(
        "SELECT target_file AS file, source, json_extract(metadata, '$.origin') AS origin, lines_removed AS removed FROM write_guardian_audit WHERE source IN ('external', 'consolidation') ORDER BY target_file",
      )
      .all();
    expect(writes).toEqual([
      { file: 'MEMORY.md', source: 'consolidation', origin: 'consolidation', removed: 1 },
      { file: 'USER.md', source: 'external', origin: null, removed: 0 },
    ]);
  });

  it('recognises lifecycle lines of newer plugins instead of counting them as unknown events', async () => {
    const ctx = newContext();
    const { root } = copyFixture(ctx.workspaceDir);
    const report = await importReflectionLogs(ctx, { source: root });
    expect(report.ignored['plugin lifecycle events']).toBe(2); // gateway methods and tools registered
    expect(report.ignored['consolidation scheduler events']).toBe(2);
    expect(report.ignored['other log events']).toBeUndefined();
  });

  it('adds nothing from a copied or renamed log, and a fresh import of both equals one (ids from content, not file names)', async () => {
    const ctx = newContext();
    const { root, log } = copyFixture(ctx.workspaceDir);
    await importReflectionLogs(ctx, { source: root });
    const before = { ...dataCounts(ctx.db), failures: count(ctx.db, 'memory_gate_failures') };
    fs.copyFileSync(log, path.join(path.dirname(log), 'reflection-2026-03-20 (copy).log'));
    fs.copyFileSync(log, path.join(path.dirname(log), 'reflection-2026-03-21.log'));
    const again = await importReflectionLogs(ctx, { source: root });
    expect(again.inserted).toEqual({});
    expect({ ...dataCounts(ctx.db), failures: count(ctx.db, 'memory_gate_failures') }).toEqual(before);

    const fresh = newContext();
    const copy = copyFixture(fresh.workspaceDir);
    fs.renameSync(copy.log, path.join(path.dirname(copy.log), 'reflection-2026-03-20 (copy).log'));
    fs.copyFileSync(LOG, copy.log);
    await importReflectionLogs(fresh, { source: copy.root });
    expect({ ...dataCounts(fresh.db), failures: count(fresh.db, 'memory_gate_failures') }).toEqual(before);
    const ids = (db: typeof ctx.db) =>
      db.prepare('SELECT id FROM memory_gate_decisions UNION ALL SELECT id FROM write_guardian_audit ORDER BY 1').pluck().all();
    expect(ids(fresh.db)).toEqual(ids(ctx.db));
  });

  it('reports and skips a FIFO and a folder named like a log, in the importer and in live capture, without hanging', async () => {
    const ctx = newContext();
    const { root } = copyFixture(ctx.workspaceDir);
    const logs = path.join(root, 'logs');
    execFileSync('mkfifo', [path.join(logs, 'reflection-2026-03-19.log')]);
    fs.mkdirSync(path.join(logs, 'reflection-2026-03-21.log'));
    const report = await importReflectionLogs(ctx, { source: root });
    expect(report.notes).toEqual(
      expect.arrayContaining([
        'reflection-2026-03-19.log is a FIFO, not a log file: it was skipped.',
        'reflection-2026-03-21.log is a folder, not a log file: it was skipped.',
      ]),
    );
    expect(count(ctx.db, 'memory_gate_decisions')).toBe(7);
    await expect(importReflectionLogs(ctx, { source: path.join(logs, 'reflection-2026-03-19.log') })).rejects.toThrow(
      /is a FIFO, not a log file/,
    );

    const live = newContext();
    const liveRoot = copyFixture(live.workspaceDir).root;
    execFileSync('mkfifo', [path.join(liveRoot, 'logs', 'reflection-2026-03-19.log')]);
    const errors: unknown[] = [];
    const capture = startLiveCapture(live, { pluginRoot: liveRoot, onEvent: (e) => e.type === 'error' && errors.push(e.error) });
    await capture.sync();
    await capture.stop();
    expect(errors).toEqual([]);
    expect(count(live.db, 'memory_gate_decisions')).toBe(7);
  });
});
