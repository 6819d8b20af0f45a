export * from './client';
export type * from '../../../shared/contract/dto';
export type { Channel, InputOf, OutputOf, JobChannel, JobResultOf } from '../../../shared/contract';
