// The typed API between the renderer and main: one declaration per call (channel = key, zod input
// schema, output type, whether it mutates). Electron IPC, browser-mode HTTP, the preload's allowed
// channel list and the renderer client are all derived from this map. Pure TS + zod only.
import { z } from 'zod';
import type { Contract } from './define';
import { recordContracts } from './records';
import { guardianContracts } from './guardian';
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

export const contracts = {
  ...appContracts,
  ...recordContracts,
  ...guardianContracts,
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
