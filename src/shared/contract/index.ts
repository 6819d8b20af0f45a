// The typed API between the renderer and main: one declaration per call (channel = key, zod input
// schema, output type, whether it mutates). Electron IPC, browser-mode HTTP, the preload's allowed
// channel list and the renderer client are all derived from this map. Pure TS + zod only.
import { z } from 'zod';
import { AUDIT_SOURCES, AUDIT_STATUSES, MEMORY_FILES } from '../domain';
import type { Page } from '../paging';
import { cursor, empty, epochMs, id, limit, mutation, query, type Contract } from './define';
import { recordContracts, type AuditRow } from './records';
import type * as G from './guardian';
import { appContracts } from './app';
import { datasetContracts } from './dataset';
import { importContracts } from './imports';
import { lifecycleContracts } from './lifecycle';
import { curationContracts } from './curation';
import { healthContracts } from './health';

export type { Page } from '../paging';
export * from './records';
export * from './guardian';
export * from './app';
export * from './dataset';
export * from './imports';
export * from './lifecycle';
export * from './curation';
export * from './health';
export * from './changes';
export type { Contract, CallKind, JobHandle } from './define';

const memoryFile = z.enum(MEMORY_FILES);
const timeRange = { since: epochMs.optional(), until: epochMs.optional() };
const text = (max = 100_000) => z.string().max(max);
const reason = z.string().trim().min(1, 'a reason is required').max(2000);


export const contracts = {
  ...appContracts,

  ...recordContracts,

  // ---- write_guardian ----
  'guardian.list': query<Page<AuditRow>>()(
    z.strictObject({
      sessionId: id.optional(),
      file: memoryFile.optional(),
      status: z.enum(AUDIT_STATUSES).optional(),
      source: z.enum(AUDIT_SOURCES).optional(),
      limit: limit(),
      cursor,
      ...timeRange,
    }),
    'write_guardian audits, newest first',
  ),
  'guardian.show': query<G.AuditDetail>()(z.strictObject({ id }), 'An audit with its decision, turn, rollback and corrections'),
  'guardian.stats': query<G.AuditStatusCount[]>()(empty, 'How many writes carry each status, all time'),
  'guardian.diff': query<G.AuditDiff>()(z.strictObject({ id }), 'Before/after content and unified diff of a write'),
  'guardian.history': query<Page<G.FileVersion>>()(
    z.strictObject({ file: memoryFile, limit: limit(), cursor }),
    'Every version of one memory file, newest first',
  ),
  'guardian.rollback': mutation<G.RollbackOutcome>()(
    z.strictObject({ auditId: id, reason, dryRun: z.boolean().default(false), force: z.boolean().default(false) }),
    'Undo one write (reverse patch when the file changed since; refuses a conflict unless force)',
  ),
  'guardian.rollbackSession': mutation<G.SessionRollbackOutcome>()(
    z.strictObject({
      sessionId: id, reason, dryRun: z.boolean().default(false), force: z.boolean().default(false), ...timeRange,
      /** Writes to leave as they are, and writes to restore even over later changes. */
      skip: z.array(id).max(10_000).default([]),
      forceIds: z.array(id).max(10_000).default([]),
    }),
    "Undo a session's writes, newest first (per write: skip or force)",
  ),
  'guardian.retry': mutation<G.RetryOutcome>()(
    z.strictObject({
      auditId: id,
      fact: text(20_000).optional(),
      file: memoryFile.optional(),
      /** Full file content the curator edited; replaces the generated content. */
      content: text(5_000_000).optional(),
      dryRun: z.boolean().default(false),
      /** Why the write is retried: required unless dryRun (kept in the retry's audit, as a rollback's reason is). */
      reason: z.string().trim().max(2000).optional(),
    }),
    'Re-apply a write with a corrected fact, file or content (dryRun: preview the content; a real retry needs a reason)',
  ),
  'guardian.correct': mutation<G.CorrectionDto>()(
    z.strictObject({
      auditId: id,
      status: z.enum(['written', 'refused']),
      fact: text(20_000).optional(),
      file: memoryFile.optional(),
      reason,
      applyToFuture: z.boolean().default(false),
      pattern: z.string().max(2000).optional(),
    }),
    'Record a behaviour correction for a write',
  ),

  ...datasetContracts,

  ...importContracts,
  ...lifecycleContracts,
  ...curationContracts,
  ...healthContracts,
} satisfies Record<string, Contract>;

export type Contracts = typeof contracts;
export type Channel = keyof Contracts;
export const CHANNELS = Object.keys(contracts) as Channel[];
export const MUTATING_CHANNELS = CHANNELS.filter((c) => contracts[c].mutating);
export const JOB_CHANNELS = CHANNELS.filter((c) => contracts[c].kind === 'job');

/** What the caller passes (defaults may be omitted). */
export type InputOf<C extends Channel> = z.input<Contracts[C]['input']>;
/** What a handler receives after validation (defaults filled in). */
export type ParsedInputOf<C extends Channel> = z.output<Contracts[C]['input']>;
export type OutputOf<C extends Channel> = NonNullable<Contracts[C]['__output']>;
/** The final result of a job channel. */
export type JobResultOf<C extends Channel> = NonNullable<Contracts[C]['__result']>;
export type JobChannel = { [C in Channel]: Contracts[C]['kind'] extends 'job' ? C : never }[Channel];

export function isChannel(name: string): name is Channel {
  return Object.prototype.hasOwnProperty.call(contracts, name);
}

/** The bridge shape: what window.api (preload) and the HTTP transport both provide. */
export interface ApiTransport {
  invoke(channel: string, input: unknown): Promise<import('../errors').Result<unknown>>;
  onChange(cb: (event: import('./app').ChangeEvent) => void): () => void;
}

/** Events pushed from main to the renderer (IPC event name / SSE event). */
export const CHANGE_EVENT_CHANNEL = 'reflection:change';
/** Prefix of every IPC channel, so main never confuses ours with Electron's. */
export const IPC_PREFIX = 'reflection:';
export const ipcChannel = (c: Channel): string => `${IPC_PREFIX}${c}`;
