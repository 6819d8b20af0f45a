export * from './client';
export type * from '../../../shared/contract';
export type * from '../../../shared/contract/records';
export type * from '../../../shared/contract/guardian';
export type { Channel, InputOf, OutputOf, JobChannel, JobResultOf } from '../../../shared/contract';
