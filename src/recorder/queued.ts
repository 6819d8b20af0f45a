// The recorder a running plugin calls from its hot path. Every call validates, assigns an id,
// queues the event and returns at once; a writer thread does the database work. The queue is
// bounded: when the writer falls behind by maxQueue events, new events are dropped and counted
// (never blocking the gateway). close() flushes everything; a process that exits without close()
// writes its unwritten events to a spool file that the next recorder replays, with the drop count.
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ulid } from 'ulid';
import { recorderEvent, type RecorderEvent } from './events';
import { spoolName, type FromWorker, type RecoveryReport } from './protocol';

const STATE_DIR = '.openclaw-reflection';

type Without<T, K extends keyof T> = Omit<T, K> & { id?: string; createdAt?: number };
type EventOf<K extends RecorderEvent['kind']> = Extract<RecorderEvent, { kind: K }>;
export type TurnRecord = Without<EventOf<'turn'>, 'kind' | 'id' | 'createdAt'>;
export type DecisionRecord = Without<EventOf<'decision'>, 'kind' | 'id' | 'createdAt'>;
export type WriteRecord = Without<EventOf<'write'>, 'kind' | 'id' | 'createdAt'>;

export interface QueuedRecorderOptions {
  /** The OpenClaw workspace (the database is <workspace>/.openclaw-reflection/...). */
  workspaceDir: string;
  /** Events queued and not yet written at which new events are dropped (default 10,000). */
  maxQueue?: number;
  /** Called (never thrown) for invalid input, dropped events and events the database refused. */
  onError?: (error: Error) => void;
  /** Path of a better-sqlite3 addon built for this runtime (Electron passes its own copy). */
  nativeBinding?: string;
}

export interface RecorderStats {
  queued: number;
  recorded: number;
  dropped: number;
  failed: number;
  invalid: number;
}

function workerEntry(): string {
  const built = path.join(__dirname, 'worker.cjs');
  // From source (tests, the tsx CLI): a bootstrap that loads the TypeScript worker through tsx.
  return fs.existsSync(built) ? built : path.join(__dirname, 'worker-dev.cjs');
}

export class QueuedRecorder {
  /** Resolves when the writer is up, with what it recovered from a previous crash. */
  readonly ready: Promise<RecoveryReport>;
  private readonly worker: Worker;
  private readonly pending = new Map<number, RecorderEvent>();
  private outbox: Array<{ seq: number; event: RecorderEvent }> = [];
  private seq = 0;
  private scheduled = false;
  private closed = false;
  private dead = false;
  private readonly counts = { recorded: 0, dropped: 0, failed: 0, invalid: 0 };
  private readonly maxQueue: number;
  private readonly waiters: Array<() => void> = [];
  private closedSignal?: () => void;
  private readonly onExit = () => this.spool();

  constructor(private readonly options: QueuedRecorderOptions) {
    this.maxQueue = options.maxQueue ?? 10_000;
    this.worker = new Worker(workerEntry(), { workerData: { workspaceDir: options.workspaceDir, nativeBinding: options.nativeBinding } });
    this.worker.unref(); // a plugin's recorder never keeps the gateway alive; exit spools what is left
    let readyResolve!: (r: RecoveryReport) => void;
    let readyReject!: (e: Error) => void;
    this.ready = new Promise((res, rej) => ((readyResolve = res), (readyReject = rej)));
    this.ready.catch(() => undefined);
    this.worker.on('message', (m: FromWorker) => {
      if (m.type === 'ready') readyResolve(m.recovered);
      else if (m.type === 'ack') this.acknowledge(m);
      else if (m.type === 'closed') this.closedSignal?.();
    });
    this.worker.on('error', (e) => {
      readyReject(e);
      this.report(e);
    });
    // A writer that died keeps nothing waiting: what it did not write stays pending and is spooled at exit.
    this.worker.on('exit', () => {
      this.dead = true;
      for (const w of this.waiters.splice(0)) w();
      this.closedSignal?.();
    });
    process.on('exit', this.onExit);
  }

  recordTurn(turn: TurnRecord): string {
    return this.enqueue({ kind: 'turn', ...turn } as RecorderEvent);
  }

  recordDecision(decision: DecisionRecord): string {
    return this.enqueue({ kind: 'decision', ...decision } as RecorderEvent);
  }

  recordWrite(write: WriteRecord): string {
    return this.enqueue({ kind: 'write', ...write } as RecorderEvent);
  }

  stats(): RecorderStats {
    return { queued: this.pending.size, ...this.counts };
  }

  /** Resolves once every event queued so far is written (or refused). */
  flush(): Promise<void> {
    this.post();
    if (!this.pending.size || this.dead) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }

  /** Flushes, then stops the writer. Nothing queued is lost. */
  async close(): Promise<RecorderStats> {
    if (this.closed) return this.stats();
    await this.flush();
    this.closed = true;
    if (!this.dead) {
      const done = new Promise<void>((r) => (this.closedSignal = r));
      this.worker.postMessage({ type: 'close' });
      await done;
      await this.worker.terminate();
    }
    // Only a clean close drops the exit spool; a dead writer leaves its pending events to it.
    if (!this.pending.size) process.off('exit', this.onExit);
    return this.stats();
  }

  private enqueue(input: RecorderEvent): string {
    const event = { ...input, id: input.id ?? ulid(), createdAt: input.createdAt ?? Date.now() } as RecorderEvent;
    if (this.closed) {
      this.counts.dropped++;
      this.report(new Error(`recorder: ${event.kind} ${event.id} dropped: the recorder is closed`));
      return event.id!;
    }
    const parsed = recorderEvent.safeParse(event);
    if (!parsed.success) {
      this.counts.invalid++;
      const issue = parsed.error.issues[0];
      this.report(new Error(`recorder: ${event.kind}: ${issue?.path.join('.') || '(input)'}: ${issue?.message ?? 'invalid'}`));
      return event.id!;
    }
    if (this.pending.size >= this.maxQueue) {
      this.counts.dropped++;
      this.report(new Error(`recorder: ${event.kind} ${event.id} dropped: ${this.maxQueue} events are waiting for the database`));
      return event.id!;
    }
    const seq = ++this.seq;
    this.pending.set(seq, event);
    this.outbox.push({ seq, event });
    if (!this.scheduled) {
      this.scheduled = true;
      // One message per tick: a reply's turn, decision and write travel together.
      setImmediate(() => this.post());
    }
    return event.id!;
  }

  private post(): void {
    this.scheduled = false;
    if (!this.outbox.length) return;
    const items = this.outbox;
    this.outbox = [];
    this.worker.postMessage({ type: 'events', items });
  }

  private acknowledge(m: Extract<FromWorker, { type: 'ack' }>): void {
    const failed = new Set(m.failed.map((f) => f.seq));
    for (const seq of [...this.pending.keys()]) {
      if (seq > m.upTo) break;
      this.pending.delete(seq);
      if (!failed.has(seq)) this.counts.recorded++;
    }
    this.counts.failed += m.failed.length;
    for (const f of m.failed) this.report(new Error(`recorder: event ${f.seq} was not recorded: ${f.message}`));
    if (!this.pending.size) for (const w of this.waiters.splice(0)) w();
  }

  private report(e: Error): void {
    try {
      this.options.onError?.(e);
    } catch {
      /* a listener's failure must not reach the gateway */
    }
  }

  /** At process exit without close(): keep what was not written, and say how much was dropped. */
  private spool(): void {
    if (!this.pending.size && !this.counts.dropped) return;
    try {
      const dir = path.join(this.options.workspaceDir, STATE_DIR);
      fs.mkdirSync(dir, { recursive: true });
      const lines = [JSON.stringify({ header: { dropped: this.counts.dropped, pending: this.pending.size } })];
      for (const event of this.pending.values()) lines.push(JSON.stringify({ event }));
      fs.writeFileSync(path.join(dir, spoolName(process.pid, Date.now())), lines.join('\n') + '\n');
    } catch {
      /* nothing more can be done while the process exits */
    }
  }
}

/** Starts a queued recorder for a workspace. Its calls never block and never throw. */
export function createRecorder(options: QueuedRecorderOptions): QueuedRecorder {
  return new QueuedRecorder(options);
}
