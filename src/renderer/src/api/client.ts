// The renderer's only way to main: one ApiClient interface, two transports. In Electron the preload
// provides window.api (IPC); in browser mode calls go to POST /api/<channel> with the session cookie
// (the server exchanged the URL token for it; the page never sees the token).
// Components cannot tell which one they have.
import {
  contracts,
  isDryRun,
  type ApiTransport,
  type Channel,
  type ChangeEvent,
  type InputOf,
  type JobChannel,
  type JobResultOf,
  type JobStatus,
  type OutputOf,
} from '../../../shared/contract';
import { AppError, ERROR_KINDS, type ErrorKind, type Result } from '../../../shared/errors';

/** A failed call, rebuilt from the `{ ok: false, error: { kind, message } }` envelope. */
export class ApiError extends AppError {
  readonly channel: string;
  constructor(kind: ErrorKind, message: string, channel: string, details?: unknown) {
    super(kind, message, details);
    this.name = 'ApiError';
    this.channel = channel;
  }
}

export type ArgsOf<C extends Channel> = object extends InputOf<C> ? [input?: InputOf<C>] : [input: InputOf<C>];

export interface RunJobOptions {
  onProgress?: (job: JobStatus) => void;
  /** Aborting cancels the job in main (jobs.cancel). */
  signal?: AbortSignal;
}

export interface ApiClient {
  readonly mode: 'electron' | 'web';
  /** One typed call. Throws ApiError. */
  call<C extends Channel>(channel: C, ...args: ArgsOf<C>): Promise<OutputOf<C>>;
  /** Starts a job channel and resolves with its result when it is done (rejects with ApiError on failure or cancel). */
  runJob<C extends JobChannel>(channel: C, input: InputOf<C>, opts?: RunJobOptions): Promise<JobResultOf<C>>;
  /** Push events: data_version changes, job progress, workspace switches. Returns an unsubscribe function. */
  onChange(cb: (event: ChangeEvent) => void): () => void;
  /** Browser mode: a URL that downloads an export file. Electron: null (use exports.startDrag). */
  downloadUrl(exportId: string, fileName: string): string | null;
}

function unwrap<T>(channel: string, result: Result<unknown> | undefined | null): T {
  if (result && result.ok === true) return result.value as T;
  const err = result && result.ok === false ? result.error : undefined;
  const kind: ErrorKind = err && (ERROR_KINDS as readonly string[]).includes(err.kind) ? err.kind : 'Internal';
  throw new ApiError(kind, err?.message ?? `malformed response from ${channel}`, channel, err?.details);
}

abstract class BaseClient implements ApiClient {
  abstract readonly mode: 'electron' | 'web';
  protected abstract invoke(channel: Channel, input: unknown): Promise<Result<unknown>>;
  abstract onChange(cb: (event: ChangeEvent) => void): () => void;
  abstract downloadUrl(exportId: string, fileName: string): string | null;

  async call<C extends Channel>(channel: C, ...args: ArgsOf<C>): Promise<OutputOf<C>> {
    const input = args[0] ?? {};
    return unwrap<OutputOf<C>>(channel, await this.invoke(channel, input));
  }

  runJob<C extends JobChannel>(channel: C, input: InputOf<C>, opts: RunJobOptions = {}): Promise<JobResultOf<C>> {
    return new Promise<JobResultOf<C>>((resolve, reject) => {
      let jobId: string | null = null;
      let finished = false;
      let poll: ReturnType<typeof setInterval> | undefined;
      const settle = (job: JobStatus) => {
        if (finished || job.jobId !== jobId) return;
        opts.onProgress?.(job);
        if (job.state === 'running') return;
        finished = true;
        unsubscribe();
        if (poll) clearInterval(poll);
        opts.signal?.removeEventListener('abort', onAbort);
        if (job.state === 'done') resolve(job.result as JobResultOf<C>);
        else if (job.state === 'cancelled') reject(new ApiError('Cancelled', job.error?.message ?? `${channel} cancelled`, channel));
        else reject(new ApiError(job.error?.kind ?? 'Internal', job.error?.message ?? 'job failed', channel));
      };
      const unsubscribe = this.onChange((e) => {
        if (e.type === 'job') settle(e.job);
      });
      const onAbort = () => {
        if (jobId) void this.call('jobs.cancel', { jobId }).catch(() => undefined);
      };
      opts.signal?.addEventListener('abort', onAbort);
      (this.call as (c: Channel, i: unknown) => Promise<{ jobId: string }>)(channel, input)
        .then((handle) => {
          jobId = handle.jobId;
          if (opts.signal?.aborted) onAbort();
          // Events can be missed (a reconnecting event stream): a slow poll guarantees completion.
          const check = () => this.call('jobs.get', { jobId: handle.jobId }).then(settle, () => undefined);
          poll = setInterval(check, 1000);
          void check();
        })
        .catch((e) => {
          finished = true;
          unsubscribe();
          reject(e);
        });
    });
  }
}

/** Electron: the preload's window.api. */
export class IpcClient extends BaseClient {
  readonly mode = 'electron' as const;
  constructor(private readonly bridge: ApiTransport) {
    super();
  }
  protected invoke(channel: Channel, input: unknown): Promise<Result<unknown>> {
    return this.bridge.invoke(channel, input);
  }
  onChange(cb: (event: ChangeEvent) => void): () => void {
    return this.bridge.onChange(cb);
  }
  downloadUrl(): string | null {
    return null;
  }
}

/** Non-browser clients may send the token in this header; the page itself uses the HttpOnly cookie. */
export const TOKEN_HEADER = 'X-Reflection-Token';
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

function newKey(): string {
  const c = globalThis.crypto as Crypto | undefined;
  if (c?.randomUUID) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/** Browser mode: same-origin HTTP with the session cookie; SSE for push events. */
export class HttpClient extends BaseClient {
  readonly mode = 'web' as const;
  private source: EventSource | null = null;
  private listeners = new Set<(event: ChangeEvent) => void>();

  constructor(private readonly base = '') {
    super();
  }

  protected async invoke(channel: Channel, input: unknown): Promise<Result<unknown>> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    // One key per logical call: a retry after a network failure reuses it, so main never repeats the action.
    // A dry run is a read: it needs no key (main stores no idempotency row for it either).
    if (contracts[channel].mutating && !isDryRun(input)) headers[IDEMPOTENCY_HEADER] = newKey();
    const body = JSON.stringify(input ?? {});
    let lastError: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      let res: Response;
      try {
        res = await fetch(`${this.base}/api/${channel}`, { method: 'POST', headers, body, credentials: 'same-origin' });
      } catch (e) {
        lastError = e;
        continue;
      }
      try {
        return (await res.json()) as Result<unknown>;
      } catch {
        return {
          ok: false,
          error: { kind: res.status === 429 ? 'RateLimited' : 'Internal', message: `HTTP ${res.status} from ${channel}` },
        };
      }
    }
    return {
      ok: false,
      error: { kind: 'Io', message: `cannot reach the workbench server (${(lastError as Error)?.message ?? 'network error'})` },
    };
  }

  onChange(cb: (event: ChangeEvent) => void): () => void {
    this.listeners.add(cb);
    if (!this.source && typeof EventSource !== 'undefined') {
      this.source = new EventSource(`${this.base}/api/events`);
      this.source.onmessage = (m) => {
        let event: ChangeEvent;
        try {
          event = JSON.parse(m.data) as ChangeEvent;
        } catch {
          return;
        }
        for (const l of [...this.listeners]) l(event);
      };
    }
    return () => {
      this.listeners.delete(cb);
      if (this.listeners.size === 0 && this.source) {
        this.source.close();
        this.source = null;
      }
    };
  }

  /** The server answers this (with the cookie) by a redirect to a one-use ticket: the link holds no credential. */
  downloadUrl(exportId: string, fileName: string): string {
    const q = new URLSearchParams({ exportId, file: fileName });
    return `${this.base}/api/download?${q.toString()}`;
  }
}

let singleton: ApiClient | null = null;

/** The client for this page: IPC when the preload exposed window.api, HTTP otherwise. */
export function getApiClient(): ApiClient {
  if (singleton) return singleton;
  if (typeof window !== 'undefined' && window.api) {
    singleton = new IpcClient(window.api);
  } else {
    singleton = new HttpClient();
  }
  return singleton;
}
