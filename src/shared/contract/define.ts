// The shape of one API call. Channel names are the keys of the `contracts` map (contract/index.ts),
// so a call is declared exactly once and the preload, the handler registry and the clients derive from it.
import { z } from 'zod';

export type CallKind = 'query' | 'mutation' | 'job';

/** What a job channel answers at once; its result arrives through jobs.get and job events. */
export const jobHandleSchema = z.object({ jobId: z.string() });
export type JobHandle = z.infer<typeof jobHandleSchema>;

export interface Contract<S extends z.ZodType = z.ZodType, O = unknown, R = unknown, K extends CallKind = CallKind> {
  input: S;
  /**
   * The output (for a job: the result) as a zod schema. The registry checks every answer against it
   * outside production, so a service that drifts from its contract fails tests, not the renderer.
   */
  output?: z.ZodType<K extends 'job' ? R : O>;
  kind: K;
  /** Changes data or files: browser mode honours an Idempotency-Key for these. */
  mutating: boolean;
  summary: string;
  /** Phantom fields carrying the output (and job result) types; never set at runtime. */
  readonly __output?: O;
  readonly __result?: R;
}

/**
 * A read-only call. With an output schema the type is inferred from it: `query(pageSchema)(input, 'summary')`;
 * without one (areas not converted yet) it is given: `query<Page<SessionRow>>()(input, 'summary')`.
 */
export const query =
  <O>(output?: z.ZodType<O>) =>
  <S extends z.ZodType>(input: S, summary: string): Contract<S, O, never, 'query'> => ({
    input,
    output,
    kind: 'query',
    mutating: false,
    summary,
  });

/** A call that changes the database or files. */
export const mutation =
  <O>(output?: z.ZodType<O>) =>
  <S extends z.ZodType>(input: S, summary: string): Contract<S, O, never, 'mutation'> => ({
    input,
    output,
    kind: 'mutation',
    mutating: true,
    summary,
  });

/** Long work (imports, collect, export): returns a JobHandle at once; the result R arrives through jobs.get / job events. */
export const job =
  <R>(result?: z.ZodType<R>) =>
  <S extends z.ZodType>(input: S, summary: string): Contract<S, JobHandle, R, 'job'> => ({
    input,
    output: result,
    kind: 'job',
    mutating: true,
    summary,
  });

// ---- shared input pieces ----
export const id = z.string().min(1).max(200);
export const limit = (max = 500, dflt = 50) => z.number().int().min(1).max(max).default(dflt);
export const cursor = z.string().max(500).optional();
export const epochMs = z.number().int().min(0);
export const empty = z.strictObject({});

/** A keyset page of items of a schema (the schema form of `Page<T>`). */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable(), total: z.number().optional() });
