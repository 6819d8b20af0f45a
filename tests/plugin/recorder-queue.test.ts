// The queued recorder a plugin calls: never blocks the caller's event loop (even while another
// process holds the database for 5 s), loses nothing on close, spools and reports on a crash, and
// accepts what the plugin can actually give (no latency or tokens; a skipped write without a file).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { createRecorder } from '../../src/recorder';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

const count = (ws: string, table: string) => {
  const { db } = openWorkspaceDatabase(ws);
  try {
    return db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  } finally {
    db.close();
  }
};

/** Records one reply the way the plugin patch does: turn, decision, write with before/after content. */
function recordReply(recorder: ReturnType<typeof createRecorder>, i: number) {
  const sessionId = `channel:discord:channel:${i % 3}`;
  const turnId = recorder.recordTurn({
    sessionId,
    channelId: 'discord',
    userMessage: { content: `message ${i}` },
    agentReply: { content: `reply ${i}` },
    context: [{ role: 'user', message: `message ${i}`, timestamp: Date.now() }],
  });
  const decisionId = recorder.recordDecision({
    turnId,
    sessionId,
    decision: 'UPDATE_MEMORY',
    reason: 'durable',
    candidateFact: `fact ${i}`,
  });
  recorder.recordWrite({
    decisionId,
    status: 'written',
    targetFile: 'MEMORY.md',
    before: `# MEMORY\n${'- old\n'.repeat(i % 50)}`,
    after: `# MEMORY\n${'- old\n'.repeat(i % 50)}- fact ${i}\n`,
  });
}

describe('queued recorder', () => {
  it('keeps the event loop free under a 5 s busy lock, then writes everything on close', async () => {
    const ws = tempWorkspace('recorder-busy-');
    openWorkspaceDatabase(ws).db.close(); // create and migrate first, so the lock holder finds the schema
    const recorder = createRecorder({ workspaceDir: ws });
    await recorder.ready;
    recordReply(recorder, 0); // warm up (schema compilation, first message) before measuring
    await recorder.flush();
    const dbFile = fs.readdirSync(path.join(ws, '.openclaw-reflection')).find((f) => f.endsWith('.db'))!;
    // Another process takes the write lock and keeps it for 5 s.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `
      const db = require('better-sqlite3')(${JSON.stringify(path.join(ws, '.openclaw-reflection', dbFile))});
      db.exec('BEGIN IMMEDIATE'); process.stdout.write('locked\\n');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5000);
      db.exec('COMMIT'); db.close();`,
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const holderDone = new Promise((r) => holder.once('exit', r));
    await new Promise<void>((r) => holder.stdout!.once('data', () => r()));
    const lockedAt = Date.now();

    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    let slowestCall = 0;
    const callMs: number[] = [];
    let replies = 1;
    while (Date.now() - lockedAt < 4500) {
      for (let k = 0; k < 3; k++) {
        const t = performance.now();
        recordReply(recorder, replies++);
        callMs.push(performance.now() - t);
        slowestCall = Math.max(slowestCall, callMs.at(-1) ?? 0);
      }
      await new Promise((r) => setTimeout(r, 20)); // a busy gateway: a few replies every 20 ms
    }
    loop.disable();
    const waitingDuringLock = recorder.stats().queued;
    const closing = performance.now();
    const stats = await recorder.close();
    const closeMs = performance.now() - closing;
    await holderDone;
    const delayP99 = loop.percentile(99) / 1e6;
    const callP99 = callMs.sort((a, b) => a - b)[Math.floor(callMs.length * 0.99)] ?? NaN;
    const delayMax = loop.max / 1e6;
    console.log(
      `recorder under a 5 s lock: ${replies} replies (3 events each); reply recorded in p99 ${callP99.toFixed(2)} ms, slowest ${slowestCall.toFixed(2)} ms; event-loop delay p99 ${delayP99.toFixed(1)} ms, max ${delayMax.toFixed(1)} ms; ${waitingDuringLock} events queued while locked, written in ${closeMs.toFixed(0)} ms after`,
    );
    expect(waitingDuringLock).toBeGreaterThan(0); // the writer really was held up
    // What the recorder itself holds the loop for: a reply's three calls return within a few ms (printed
    // above; 0.8-2.7 ms at p99 here). The bounds are functional, not a benchmark: a recorder that waited
    // for the lock would take the whole 5 s; the slack is for GC pauses on a shared, loaded CI machine.
    expect(callP99).toBeLessThan(20);
    expect(slowestCall).toBeLessThan(500);
    // A recorder writing on this thread would stall the loop for the whole 5 s lock; the bound leaves
    // room for a shared, busy CI machine (GC, other processes), and the numbers are printed above.
    expect(delayMax).toBeLessThan(1000);
    expect(delayP99).toBeLessThan(50);
    expect(stats).toMatchObject({ queued: 0, dropped: 0, failed: 0, invalid: 0, recorded: replies * 3 });
    expect(count(ws, 'conversation_turns')).toBe(replies);
    expect(count(ws, 'write_guardian_audit WHERE diff IS NOT NULL')).toBe(replies);
  });

  it('accepts what a plugin knows: no latency, tokens or raw response; a skipped write without a target file', async () => {
    const ws = tempWorkspace('recorder-optional-');
    const errors: string[] = [];
    const recorder = createRecorder({ workspaceDir: ws, onError: (e) => errors.push(e.message) });
    const turnId = recorder.recordTurn({ sessionId: 's', userMessage: { content: 'hi' }, agentReply: { content: 'hello' } });
    const noWrite = recorder.recordDecision({ turnId, sessionId: 's', decision: 'NO_WRITE', reason: 'small talk' });
    const update = recorder.recordDecision({ turnId, sessionId: 's', decision: 'UPDATE_USER', reason: 'pref', candidateFact: 'likes tea' });
    recorder.recordWrite({ decisionId: noWrite, status: 'skipped', reason: 'not an update decision' });
    recorder.recordWrite({ decisionId: update, status: 'skipped', reason: 'missing candidate fact' });
    recorder.recordDecision({ turnId, sessionId: 's', decision: 'BOGUS' as never, reason: 'x' });
    const stats = await recorder.close();
    expect(errors).toEqual([expect.stringMatching(/^recorder: decision: decision: /)]);
    expect(stats).toMatchObject({ recorded: 5, invalid: 1, failed: 0 });
    const { db } = openWorkspaceDatabase(ws);
    expect(
      db.prepare('SELECT decision, llm_model, llm_latency_ms, prompt_tokens, outcome FROM memory_gate_decisions ORDER BY decision').all(),
    ).toEqual([
      { decision: 'NO_WRITE', llm_model: 'unknown', llm_latency_ms: null, prompt_tokens: null, outcome: 'skipped' },
      { decision: 'UPDATE_USER', llm_model: 'unknown', llm_latency_ms: null, prompt_tokens: null, outcome: null },
    ]);
    expect(db.prepare('SELECT target_file, status, reason FROM write_guardian_audit').all()).toEqual([
      { target_file: 'USER.md', status: 'skipped', reason: 'missing candidate fact' },
    ]);
    db.close();
  });

  it('a process that exits without close() spools what is queued; the next recorder replays it and reports the drops', async () => {
    const ws = tempWorkspace('recorder-crash-');
    const script = path.join(ws, 'crash.ts');
    fs.writeFileSync(
      script,
      `
      import { createRecorder } from ${JSON.stringify(path.join(repoRoot, 'src', 'recorder'))};
      const r = createRecorder({ workspaceDir: ${JSON.stringify(ws)}, maxQueue: 40 });
      for (let i = 0; i < 50; i++) r.recordTurn({ id: 'T' + String(i).padStart(25, '0'), sessionId: 's', userMessage: { content: 'u' + i }, agentReply: { content: 'a' + i } });
      process.exit(0); // the gateway goes down before the writer caught up
    `,
    );
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(fs.readdirSync(path.join(ws, '.openclaw-reflection')).filter((f) => f.startsWith('recorder-spool-'))).toHaveLength(1);

    const recorder = createRecorder({ workspaceDir: ws });
    const recovered = await recorder.ready;
    await recorder.close();
    expect(recovered).toMatchObject({ spoolFiles: 1, droppedBeforeCrash: 10, failed: 0 });
    expect(recovered.replayed + recovered.alreadyRecorded).toBe(40);
    expect(count(ws, 'conversation_turns')).toBe(40);
    expect(fs.readdirSync(path.join(ws, '.openclaw-reflection')).filter((f) => f.startsWith('recorder-spool-'))).toEqual([]);
  });
});
