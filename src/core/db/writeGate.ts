// Main's writes go first. A long job in a worker thread (src/api/jobs) writes page after page, each in
// its own transaction, and takes the lock again the moment it lets go; main's writers (live capture,
// a curator's review) wait in SQLite's busy handler, which sleeps up to 100 ms between tries and so
// would almost never catch the gap. Through this gate main counts the writers it has waiting, and the
// job checks the count before each transaction and steps aside until they are done.
let gate: { view: Int32Array; role: 'main' | 'job' } | null = null;

/** A job steps aside at most this long per transaction: main writing back to back must not stall it. */
const MAX_YIELD_MS = 200;

/** Main side: the shared counter to hand to job workers (created on first use). */
export function writeGateBuffer(): SharedArrayBuffer {
  if (!gate) gate = { view: new Int32Array(new SharedArrayBuffer(4)), role: 'main' };
  return gate.view.buffer as SharedArrayBuffer;
}

/** Worker side: join main's gate as a job that yields. */
export function joinWriteGate(buffer: SharedArrayBuffer): void {
  gate = { view: new Int32Array(buffer), role: 'job' };
}

/** Runs one write transaction through the gate (no gate: just runs it). */
export function throughWriteGate<T>(run: () => T): T {
  if (!gate) return run();
  const { view, role } = gate;
  if (role === 'job') {
    const until = Date.now() + MAX_YIELD_MS;
    for (let waiting = Atomics.load(view, 0); waiting > 0 && Date.now() < until; waiting = Atomics.load(view, 0)) {
      Atomics.wait(view, 0, waiting, 20);
    }
    return run();
  }
  Atomics.add(view, 0, 1);
  try {
    return run();
  } finally {
    Atomics.sub(view, 0, 1);
    Atomics.notify(view, 0);
  }
}

/**
 * Job side: true while main has a writer waiting for the lock. A bulk job checks it inside a long
 * transaction and commits early, so it can keep transactions large (fewer WAL copies of the same
 * pages) and still let main in within one unit of work. Always false outside a job worker.
 */
export function mainWriterWaiting(): boolean {
  return gate !== null && gate.role === 'job' && Atomics.load(gate.view, 0) > 0;
}

/** SQLite's busy handler sleeps at most 100 ms between tries: a longer gap is one it cannot miss. */
const BUSY_HANDLER_GAP_MS = 110;

/**
 * Job side, after a transaction that ran its full time budget: a pause a sleeping busy handler is sure
 * to notice, for main's writes that do not go through writeTx (autocommit statements, which the gate
 * cannot count). Outside a job worker it returns at once.
 */
export function pauseForUncountedWriters(): Promise<void> {
  if (!gate || gate.role !== 'job') return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, BUSY_HANDLER_GAP_MS));
}
