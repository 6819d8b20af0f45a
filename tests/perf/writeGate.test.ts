// Main's writes go first (src/core/db/writeGate.ts): a job worker that finds a main writer waiting
// steps aside before its next transaction, and proceeds as soon as main is done.
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { throughWriteGate, writeGateBuffer } from '../../src/core/db/writeGate';

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
    parentPort.once('message', () => gate.throughWriteGate(() => parentPort.postMessage({ ran: Date.now() })));`;
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
});
