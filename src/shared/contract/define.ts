// The shape of one API call. Channel names are the keys of the `contracts` map (contract/index.ts),
// so a call is declared exactly once and the preload, the handler registry and the clients derive from it.
import { z } from 'zod';
import type { JobHandle } from './dto';

export type CallKind = 'query' | 'mutation' | 'job';

export interface Contract<S extends z.ZodType = z.ZodType, O = unknown, R = unknown, K extends CallKind = CallKind> {
  input: S;
  kind: K;
  /** Changes data or files: browser mode honours an Idempotency-Key for these. */
  mutating: boolean;
  summary: string;
  /** Phantom fields carrying the output (and job result) types; never set at runtime. */
  readonly __output?: O;
  readonly __result?: R;
}

/** A read-only call. Usage: `query<Page<SessionRow>>()(schema, 'summary')`. */
export const query =
  <O>() =>
  <S extends z.ZodType>(input: S, summary: string): Contract<S, O, never, 'query'> => ({ input, kind: 'query', mutating: false, summary });

/** A call that changes the database or files. */
export const mutation =
  <O>() =>
  <S extends z.ZodType>(input: S, summary: string): Contract<S, O, never, 'mutation'> => ({ input, kind: 'mutation', mutating: true, summary });

/** Long work (imports, collect, export): returns a JobHandle at once; the result R arrives through jobs.get / job events. */
export const job =
  <R>() =>
  <S extends z.ZodType>(input: S, summary: string): Contract<S, JobHandle, R, 'job'> => ({ input, kind: 'job', mutating: true, summary });

// ---- shared input pieces ----
export const id = z.string().min(1).max(200);
export const limit = (max = 500, dflt = 50) => z.number().int().min(1).max(max).default(dflt);
export const cursor = z.string().max(500).optional();
export const epochMs = z.number().int().min(0);
export const empty = z.strictObject({});
