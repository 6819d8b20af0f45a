// The one place every contract meets its handler. Both transports (Electron IPC, browser-mode HTTP)
// call dispatch(): it validates the input with the contract's zod schema (malformed input never
// reaches a service), runs the handler, checks its answer against the contract's output schema
// outside production, maps errors to kinds, and logs slow calls.
import {
  changeOf,
  contracts,
  isChannel,
  type Channel,
  type Contracts,
  type JobResultOf,
  type OutputOf,
  type ParsedInputOf,
} from '../shared/contract';
import type { Result } from '../shared/errors';
import { checkOutput } from './contractChecks';
import type { WorkspaceSession } from './session';
import type { ServiceContext } from '../core/context';
import { nulPath, toEnvelope, zodMessage } from './errors';
import type { JobManager } from './jobs/manager';

export const SLOW_CALL_MS = 50;

/** What every handler can reach. Transport-specific abilities (drag-out) are optional. */
export interface HandlerEnv {
  mode: 'electron' | 'web';
  version: string;
  session: WorkspaceSession;
  jobs: JobManager;
  /** Electron only: start dragging a file out of the window. */
  startDrag?: (file: string) => void;
}

export type CallHandler<C extends Channel> = (input: ParsedInputOf<C>, env: HandlerEnv) => OutputOf<C> | Promise<OutputOf<C>>;
export type JobHandler<C extends Channel> = (
  input: ParsedInputOf<C>,
  ctx: ServiceContext,
  env: HandlerEnv,
) => JobResultOf<C> | Promise<JobResultOf<C>>;

export type Handlers = {
  [C in Channel]: Contracts[C]['kind'] extends 'job' ? JobHandler<C> : CallHandler<C>;
};

export interface Logger {
  warn(message: string): void;
}

export interface Registry {
  readonly channels: readonly Channel[];
  dispatch(channel: string, rawInput: unknown): Promise<Result<unknown>>;
}

export function createRegistry(handlers: Handlers, env: HandlerEnv, log: Logger = console): Registry {
  // The compiler checks the map; this catches a map assembled at run time (tests, overrides).
  const missing = (Object.keys(contracts) as Channel[]).filter((c) => typeof handlers[c] !== 'function');
  if (missing.length) throw new Error(`no handler for ${missing.join(', ')}`);
  const fullEnv: HandlerEnv = { ...env };
  // Jobs write on their own connections: their commits are theirs, not another process's.
  fullEnv.session.setBackgroundWriters?.(() => fullEnv.jobs?.writingAreas?.() ?? null);

  async function run(channel: Channel, input: unknown): Promise<unknown> {
    const contract = contracts[channel];
    const handler = handlers[channel] as (...args: unknown[]) => unknown;
    if (contract.kind === 'job') {
      // A job announces its change when it ends; a dry run (collect's preview) announces nothing.
      return fullEnv.jobs.start(
        channel,
        async ({ signal, progress }) => {
          const result = await handler(input, fullEnv.session.serviceContext({ signal, progress }), fullEnv);
          checkOutput(channel, result);
          return result;
        },
        (result) => changeOf(channel, input, result),
      );
    }
    const value = await handler(input, fullEnv);
    checkOutput(channel, value);
    // A dry run is a read: announcing it would make every open view reload (and re-run its preview).
    const change = contract.mutating ? changeOf(channel, input, value) : null;
    if (change && fullEnv.session.isOpen()) fullEnv.session.noteLocalWrite(undefined, change);
    return value;
  }

  return {
    channels: Object.keys(contracts) as Channel[],
    async dispatch(channel: string, rawInput: unknown): Promise<Result<unknown>> {
      if (typeof channel !== 'string' || !isChannel(channel)) {
        return { ok: false, error: { kind: 'Invalid', message: `unknown channel ${String(channel).slice(0, 100)}` } };
      }
      const nul = nulPath(rawInput);
      if (nul) return { ok: false, error: { kind: 'Invalid', message: `${channel}: ${nul}: NUL characters are not allowed` } };
      const parsed = contracts[channel].input.safeParse(rawInput ?? {});
      if (!parsed.success) {
        return { ok: false, error: { kind: 'Invalid', message: `${channel}: ${zodMessage(parsed.error)}` } };
      }
      const started = performance.now();
      try {
        const value = await run(channel, parsed.data);
        return { ok: true, value: value === undefined ? null : value };
      } catch (e) {
        return toEnvelope(e);
      } finally {
        const ms = performance.now() - started;
        if (ms > SLOW_CALL_MS) log.warn(`slow call ${channel}: ${ms.toFixed(0)} ms`);
      }
    },
  };
}
