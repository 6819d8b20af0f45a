// A curator's write on main while a job worker holds the write lock for longer than main's busy timeout
// (an index rebuild at the end of a large collection holds it for seconds: docs/benchmarks.md). The
// write waits for the job's transaction without blocking main's event loop, then succeeds; before, it
// slept in SQLite's busy handler on main's thread and failed with "database is locked".
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/api/runtime';
import { dbPathFor } from '../../src/core/db/connection';
import { writeGateBuffer } from '../../src/core/db/writeGate';
import { settingsPath } from '../../src/core/lifecycle/settings';
import { IdempotencyStore } from '../../src/web/idempotency';
import { tempWorkspace } from '../helpers/workspace';

const req = createRequire(__filename);
const src = (file: string) => JSON.stringify(path.resolve(__dirname, '../../src/core/db', file));

/** A job worker on its own connection that holds one write transaction (writeTx, as jobs do) for holdMs. */
function lockingJob(buffer: SharedArrayBuffer, dbFile: string, holdMs: number): Worker {
  const code = `
    require(${JSON.stringify(req.resolve('tsx/cjs/api'))}).register();
    const { parentPort, workerData } = require('node:worker_threads');
    require(${src('writeGate.ts')}).joinWriteGate(workerData.buffer);
    const { openDatabaseFile, writeTx } = require(${src('connection.ts')});
    const db = openDatabaseFile(workerData.dbFile, { config: { busyTimeoutMs: 60000 } }).db;
    const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    parentPort.once('message', () => {
      writeTx(db, () => {
        db.prepare("UPDATE sessions SET last_activity_at = last_activity_at").run();
        parentPort.postMessage({ locked: Date.now() });
        pause(workerData.holdMs);
        parentPort.postMessage({ committing: Date.now() });
      });
      db.close();
      parentPort.postMessage({ done: Date.now() });
    });
    parentPort.postMessage({ ready: true });`;
  return new Worker(code, { eval: true, workerData: { buffer, dbFile, holdMs } });
}

let runtime: AppRuntime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

/**
 * The app on a workspace whose busy timeout (100 ms) is far shorter than the job's transaction (700 ms),
 * so a write that waits in the busy handler fails for certain, and a job worker holding that transaction.
 */
async function duringJobTransaction(test: (rt: AppRuntime, committed: () => Promise<number>) => Promise<void>): Promise<void> {
  const dir = tempWorkspace();
  fs.mkdirSync(path.dirname(settingsPath(dir)), { recursive: true });
  fs.writeFileSync(settingsPath(dir), JSON.stringify({ storage: { busyTimeoutMs: 100 } }));
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-state-'));
  runtime = createAppRuntime({ mode: 'web', stateDir, log: { warn: () => undefined } });
  runtime.session.open(dir);
  const w = lockingJob(writeGateBuffer(), dbPathFor(dir), 700);
  const messages: Record<string, number>[] = [];
  w.on('message', (m: Record<string, number>) => messages.push(m));
  const seen = async (k: string) => {
    while (!messages.some((m) => m[k] !== undefined)) await new Promise((r) => setTimeout(r, 5));
    return messages.find((m) => m[k] !== undefined)![k]!;
  };
  try {
    await seen('ready');
    w.postMessage('go');
    await seen('locked');
    await test(runtime, () => seen('committing'));
    await seen('done');
  } finally {
    await w.terminate();
  }
}

const EXCLUDE = { kind: 'session', value: 'channel:someone', reason: 'asked to be left out' } as const;

describe("main's writes during a job's long transaction", () => {
  it('wait for the transaction without blocking main, then succeed; a cancel does not wait', async () => {
    await duringJobTransaction(async (rt, committed) => {
      // a cancel acts at once: it writes nothing and must not queue behind the job it would stop
      const t0 = Date.now();
      const cancel = await rt.registry.dispatch('jobs.cancel', { jobId: 'no-such-job' });
      expect(Date.now() - t0).toBeLessThan(200);
      expect(cancel).toMatchObject({ ok: false, error: { kind: 'NotFound' } });
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 10);
      const asked = Date.now();
      const added = await rt.registry.dispatch('exclusions.add', EXCLUDE);
      const answered = Date.now();
      clearInterval(ticker);
      expect(added).toMatchObject({ ok: true, value: { kind: 'session', value: 'channel:someone' } });
      // it waited for the job's transaction, and main's event loop turned meanwhile
      expect(answered).toBeGreaterThanOrEqual(await committed());
      expect(answered - asked).toBeGreaterThan(300);
      expect(ticks).toBeGreaterThan(10);
      const listed = await rt.registry.dispatch('exclusions.list', {});
      expect(listed).toMatchObject({ ok: true, value: [{ value: 'channel:someone' }] });
    });
  });

  it("in browser mode, the Idempotency-Key's own writes wait too, and a repeat replays the stored result", async () => {
    await duringJobTransaction(async (rt, committed) => {
      const keys = new IdempotencyStore(() => rt.session.db);
      const body = JSON.stringify(EXCLUDE);
      const send = () => keys.run('exclusions.add', 'key-1', body, () => rt.registry.dispatch('exclusions.add', EXCLUDE));
      const first = await send();
      expect(first).toMatchObject({ replayed: false, result: { ok: true, value: { value: 'channel:someone' } } });
      expect(Date.now()).toBeGreaterThanOrEqual(await committed());
      // the result was stored: the repeat does not add a second exclusion
      expect(await send()).toMatchObject({ replayed: true, result: first.result });
      expect(await rt.registry.dispatch('exclusions.list', {})).toMatchObject({ ok: true, value: [{ value: 'channel:someone' }] });
    });
  });
});
