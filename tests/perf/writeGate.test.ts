// Main's writes go first (src/core/db/writeGate.ts): a job worker that finds a main writer waiting
// steps aside before its next transaction, and proceeds as soon as main is done.
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { holdWriteGate, throughWriteGate, writeGateBuffer } from '../../src/core/db/writeGate';

const req = createRequire(__filename);
const gateModule = path.resolve(__dirname, '../../src/core/db/writeGate.ts');

/** A job worker that joins the gate and reports when its transaction starts. */
function jobWorker(buffer: SharedArrayBuffer): Worker {
  const code = `
    require(${JSON.stringify(req.resolve('tsx/cjs/api'))}).register();
    const { parentPort, workerData } = require('node:worker_threads');
    const gate = require(${JSON.stringify(gateModule)});
    gate.joinWriteGate(workerData);
    parentPort.postMessage({ ready: Date.now() });
    const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    parentPort.on('message', (m) => {
      if (m === 'go') gate.throughWriteGate(() => parentPort.postMessage({ ran: Date.now() }));
      // a transaction whose body holds the lock for a while, then one more after it
      if (m === 'long') {
        gate.throughWriteGate((inLock) => inLock(() => { parentPort.postMessage({ locked: Date.now() }); pause(150); parentPort.postMessage({ unlocked: Date.now() }); }));
        gate.throughWriteGate((inLock) => inLock(() => parentPort.postMessage({ next: Date.now() })));
      }
    });`;
  return new Worker(code, { eval: true, workerData: buffer });
}

const next = (w: Worker) => new Promise<Record<string, number>>((resolve) => w.once('message', resolve));

describe('write gate', () => {
  it('a job waits while main has a writer waiting, then runs once main is through', async () => {
    const buffer = writeGateBuffer();
    const view = new Int32Array(buffer);
    const w = jobWorker(buffer);
    try {
      await next(w);
      // main writer "waiting": the count is held while the job asks for its transaction
      Atomics.add(view, 0, 1);
      const ran = next(w);
      w.postMessage('go');
      // shorter than the gate's bound (a job steps aside at most 200 ms)
      await new Promise((r) => setTimeout(r, 100));
      const releasedAt = Date.now();
      Atomics.sub(view, 0, 1);
      Atomics.notify(view, 0);
      expect((await ran).ran).toBeGreaterThanOrEqual(releasedAt);
      // and with nobody waiting, main's own writes pass straight through and leave the count at zero
      expect(throughWriteGate(() => Atomics.load(view, 0))).toBe(1);
      expect(Atomics.load(view, 0)).toBe(0);
    } finally {
      await w.terminate();
    }
  });

  it('a capture pass waits for the job transaction without blocking main, and the job waits for the whole pass', async () => {
    const buffer = writeGateBuffer();
    const w = jobWorker(buffer);
    try {
      await next(w);
      const messages: Record<string, number>[] = [];
      w.on('message', (m: Record<string, number>) => messages.push(m));
      w.postMessage('long');
      while (!messages.some((m) => m.locked)) await new Promise((r) => setTimeout(r, 5));
      // main's event loop keeps turning while the pass waits for the job's lock
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 10);
      const pass = await holdWriteGate(async () => {
        const started = Date.now();
        const ticksWhileWaiting = ticks;
        await new Promise((r) => setTimeout(r, 50)); // the pass's writes and file reads
        return { started, ticksWhileWaiting, ended: Date.now() };
      });
      clearInterval(ticker);
      const at = (k: string) => messages.find((m) => m[k] !== undefined)?.[k];
      while (at('next') === undefined) await new Promise((r) => setTimeout(r, 5));
      expect(pass.started).toBeGreaterThanOrEqual(at('unlocked')!);
      expect(pass.ticksWhileWaiting).toBeGreaterThan(0);
      // the job's next transaction waited for the whole pass (far shorter than its 200 ms bound)
      expect(at('next')!).toBeGreaterThanOrEqual(pass.ended);
      expect(Atomics.load(new Int32Array(buffer), 0)).toBe(0);
      expect(Atomics.load(new Int32Array(buffer), 1)).toBe(0);
    } finally {
      await w.terminate();
    }
  });
});
