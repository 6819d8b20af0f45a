// Main's writes go first. A long job in a worker thread (src/api/jobs) writes page after page, each in
// its own transaction, and takes the lock again the moment it lets go; main's writers (live capture,
// a curator's review) wait in SQLite's busy handler, which sleeps up to 100 ms between tries and so
// would almost never catch the gap. Through this gate main counts the writers it has waiting, and the
// job checks the count before each transaction and steps aside until they are done.
// The job also says when it is inside a transaction, so main's live capture can wait for the lock
// without blocking its event loop (holdWriteGate) instead of sleeping in the busy handler.
let gate: { view: Int32Array; role: 'main' | 'job' } | null = null;

/** Slots of the shared counter: main's writers waiting or writing, and job transactions running. */
const MAIN_WRITERS = 0;
const JOB_IN_TX = 1;

/** A job steps aside at most this long per transaction: main writing back to back must not stall it. */
const MAX_YIELD_MS = 200;
/**
 * Longest main's live capture waits, without blocking, for a job's transaction before it writes anyway
 * (then in the busy handler). A collection commits within a decision once it sees main waiting; a
 * retention prune in a worker is one transaction of seconds. A worker that died inside one is undone
 * by releaseJobTransactions.
 */
const MAX_ASYNC_WAIT_MS = 30_000;

/** Main side: the shared counters to hand to job workers (created on first use). */
export function writeGateBuffer(): SharedArrayBuffer {
  if (!gate) gate = { view: new Int32Array(new SharedArrayBuffer(8)), role: 'main' };
  return gate.view.buffer as SharedArrayBuffer;
}

/** Worker side: join main's gate as a job that yields. */
export function joinWriteGate(buffer: SharedArrayBuffer): void {
  gate = { view: new Int32Array(buffer), role: 'job' };
}

/**
 * Runs one write transaction through the gate (no gate: just runs it). `run` gets `inLock`, which it
 * calls with the transaction's body: on a job's side that marks the time it holds the write lock.
 */
export function throughWriteGate<T>(run: (inLock: <B>(body: () => B) => B) => T): T {
  if (!gate) return run(plain);
  const { view, role } = gate;
  if (role === 'job') {
    // nested in this job's own transaction: it holds the lock already, waiting would only keep main out
    const until = jobDepth > 0 ? 0 : Date.now() + MAX_YIELD_MS;
    for (let waiting = Atomics.load(view, MAIN_WRITERS); waiting > 0 && Date.now() < until; waiting = Atomics.load(view, MAIN_WRITERS)) {
      Atomics.wait(view, MAIN_WRITERS, waiting, 20);
    }
    return run(jobInLock);
  }
  Atomics.add(view, MAIN_WRITERS, 1);
  try {
    return run(plain);
  } finally {
    release(view);
  }
}

const plain = <B>(body: () => B): B => body();

/** This thread's transactions in progress (a job worker's nesting). */
let jobDepth = 0;

function jobInLock<B>(body: () => B): B {
  const view = gate!.view; // set: only handed out by throughWriteGate on a job's side
  if (jobDepth++ === 0) Atomics.add(view, JOB_IN_TX, 1);
  try {
    return body();
  } finally {
    if (--jobDepth === 0) Atomics.sub(view, JOB_IN_TX, 1);
    Atomics.notify(view, JOB_IN_TX);
  }
}

function release(view: Int32Array): void {
  Atomics.sub(view, MAIN_WRITERS, 1);
  Atomics.notify(view, MAIN_WRITERS);
}

type WaitAsync = (view: Int32Array, index: number, value: number, timeoutMs: number) => { async: boolean; value: unknown };
// Node has Atomics.waitAsync; the ES2023 library types used here do not declare it yet.
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/**
 * Main side, for a burst of small write transactions that belong together (a live capture pass): main
 * counts as waiting for the whole burst, so a job commits once, steps aside and leaves all of them the
 * lock, instead of taking it back between each two (each then waiting ~100 ms for the job's next
 * commit). Before the burst it waits for the job's transaction to end without blocking the event loop.
 * Outside the app (no job has been started) it just runs fn.
 */
export async function holdWriteGate<T>(fn: () => Promise<T>): Promise<T> {
  if (!gate || gate.role !== 'main') return fn();
  const { view } = gate;
  Atomics.add(view, MAIN_WRITERS, 1);
  try {
    const until = Date.now() + MAX_ASYNC_WAIT_MS;
    for (let inTx = Atomics.load(view, JOB_IN_TX); inTx > 0 && Date.now() < until; inTx = Atomics.load(view, JOB_IN_TX)) {
      const r = waitAsync(view, JOB_IN_TX, inTx, until - Date.now());
      if (r.async) await r.value;
    }
    return await fn();
  } finally {
    release(view);
  }
}

/** Main side, when no job worker is left: a worker stopped inside a transaction cannot leave its mark. */
export function releaseJobTransactions(): void {
  if (!gate || gate.role !== 'main') return;
  Atomics.store(gate.view, JOB_IN_TX, 0);
  Atomics.notify(gate.view, JOB_IN_TX);
}

/**
 * Job side: true while main has a writer waiting for the lock. A bulk job checks it inside a long
 * transaction and commits early, so it can keep transactions large (fewer WAL copies of the same
 * pages) and still let main in within one unit of work. Always false outside a job worker.
 */
export function mainWriterWaiting(): boolean {
  return gate !== null && gate.role === 'job' && Atomics.load(gate.view, MAIN_WRITERS) > 0;
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
