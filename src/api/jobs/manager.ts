// Long work (imports, collect, export) runs as a job: the call returns a JobHandle at once, progress
// and the result are pushed as change events, and an AbortController lets the curator cancel.
import { ulid } from 'ulid';
import { DATA_AREAS, type ChangeEvent, type DataArea, type DataChange, type JobHandle, type JobStatus } from '../../shared/contract';
import { AppError, cancelled } from '../../shared/errors';
import { toErrorBody } from '../errors';

export interface JobRunContext {
  signal: AbortSignal;
  progress: (done: number, total: number | null, label?: string) => void;
}

const KEEP_FINISHED = 100;

/** A cancelled job carries kind Cancelled, so every client tells it from a failure by kind alone. */
function markCancelled(status: JobStatus): void {
  status.state = 'cancelled';
  const { kind, message } = cancelled(status.channel);
  status.error = { kind, message };
}
const PROGRESS_EVERY_MS = 100;

export class JobManager {
  private readonly jobs = new Map<string, { status: JobStatus; controller: AbortController; lastPush: number }>();
  /** What each job still writing will change (until its end has been announced). */
  private readonly writing = new Map<string, DataChange>();

  constructor(
    private readonly emit: (event: ChangeEvent) => void,
    private readonly now: () => number = Date.now,
    /** Called when a job that changed data ends (jobs write on main's own connection, which data_version does not see). */
    private readonly onFinished: (change: DataChange) => void = () => undefined,
  ) {}

  /** `changeOf` says what a finished job changed (null: nothing, e.g. a dry run); a failed or cancelled job may have written part. */
  start(
    channel: string,
    run: (ctx: JobRunContext) => Promise<unknown> | unknown,
    changeOf: (result: unknown) => DataChange | null = () => ({ areas: [...DATA_AREAS] }),
  ): JobHandle {
    const jobId = ulid();
    const controller = new AbortController();
    const status: JobStatus = {
      jobId,
      channel,
      state: 'running',
      cancelling: false,
      done: 0,
      total: null,
      label: null,
      startedAt: this.now(),
      finishedAt: null,
      result: null,
      error: null,
    };
    const entry = { status, controller, lastPush: 0 };
    this.jobs.set(jobId, entry);
    const expected = changeOf(null);
    if (expected && expected.areas.length > 0) this.writing.set(jobId, expected);
    this.prune();
    const progress = (done: number, total: number | null, label?: string) => {
      if (status.state !== 'running') return;
      status.done = done;
      status.total = total;
      // a new step is pushed at once: it may be followed by a long silence (an index rebuild)
      const newStep = label !== undefined && label !== status.label;
      if (label !== undefined) status.label = label;
      const t = this.now();
      if (newStep || t - entry.lastPush >= PROGRESS_EVERY_MS) {
        entry.lastPush = t;
        this.push(status);
      }
    };
    // Started on the next turn so the caller gets its handle before the first progress event.
    setImmediate(() => {
      void (async () => {
        try {
          const result = await run({ signal: controller.signal, progress });
          if (controller.signal.aborted) markCancelled(status);
          else {
            status.state = 'done';
            status.result = result ?? null;
          }
        } catch (e) {
          if (controller.signal.aborted) markCancelled(status);
          else {
            status.state = 'failed';
            status.error = toErrorBody(e);
          }
        }
        status.cancelling = false;
        status.finishedAt = this.now();
        this.push(status);
        // A cancelled or failed job may have committed part of its work: it is announced too.
        const change = changeOf(status.result);
        try {
          if (change && change.areas.length > 0) this.onFinished(change);
        } finally {
          this.writing.delete(jobId);
        }
      })();
    });
    this.push(status);
    return { jobId };
  }

  /**
   * Counts a call that writes on a worker's connection (retention.prune, exclusions.purge) among the
   * background writers until the returned function is called, so its commits are announced with the
   * areas it changes.
   */
  trackWriting(change: DataChange): () => void {
    const key = `call:${ulid()}`;
    this.writing.set(key, change);
    return () => this.writing.delete(key);
  }

  /** The areas the jobs still writing change, or null when none is (see WorkspaceSession.setBackgroundWriters). */
  writingAreas(): DataArea[] | null {
    if (this.writing.size === 0) return null;
    return [...new Set([...this.writing.values()].flatMap((c) => c.areas))];
  }

  get(jobId: string): JobStatus {
    const entry = this.jobs.get(jobId);
    if (!entry) throw new AppError('NotFound', `job ${jobId} not found`);
    return { ...entry.status };
  }

  list(): JobStatus[] {
    return [...this.jobs.values()].map((e) => ({ ...e.status })).reverse();
  }

  cancel(jobId: string): JobStatus {
    const entry = this.jobs.get(jobId);
    if (!entry) throw new AppError('NotFound', `job ${jobId} not found`);
    // The job stays running until it has stopped: the status bar keeps showing it while it still
    // writes (a collection's last transaction and index rebuild), and its end is pushed as cancelled.
    if (entry.status.state === 'running' && !entry.status.cancelling) {
      entry.controller.abort();
      entry.status.cancelling = true;
      this.push(entry.status);
    }
    return { ...entry.status };
  }

  /** Aborts everything still running (workspace switch, shutdown). */
  cancelAll(): void {
    for (const id of this.jobs.keys()) this.cancel(id);
  }

  private push(status: JobStatus): void {
    this.emit({ type: 'job', job: { ...status } });
  }

  private prune(): void {
    const finished = [...this.jobs.entries()].filter(([, e]) => e.status.state !== 'running');
    for (const [id] of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.jobs.delete(id);
  }
}
