// Every channel of the contract mapped to a handler. Channels whose service has not landed yet
// answer kind Internal "not available yet" and are listed by app.info (and the README).
import { CHANNELS, type Channel } from '../../shared/contract';
import { notAvailable, type Handlers } from '../registry';
import { appHandlers } from './app';
import { curationHandlers } from './curation';
import { datasetHandlers } from './dataset';
import { guardianHandlers } from './guardian';
import { healthHandlers } from './health';
import { importHandlers } from './imports';
import { lifecycleHandlers } from './lifecycle';
import { recordHandlers } from './records';

const wired: Partial<Handlers> = {
  ...appHandlers,
  ...recordHandlers,
  ...guardianHandlers,
  ...healthHandlers,
  ...datasetHandlers,
  ...importHandlers,
  ...lifecycleHandlers,
  ...curationHandlers,
};

export function buildHandlers(overrides: Partial<Handlers> = {}): Handlers {
  const all = { ...wired, ...overrides } as Record<Channel, unknown>;
  const out = {} as Record<Channel, unknown>;
  for (const c of CHANNELS) out[c] = all[c] ?? notAvailable(c);
  return out as Handlers;
}
