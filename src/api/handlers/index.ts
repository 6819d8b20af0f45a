// Every channel of the contract mapped to its handler. The map is typed `Handlers`, so a channel
// without a handler (or a handler of the wrong shape) fails the compiler, not a curator's click.
import type { Handlers } from '../registry';
import { appHandlers } from './app';
import { curationHandlers } from './curation';
import { datasetHandlers } from './dataset';
import { guardianHandlers } from './guardian';
import { healthHandlers } from './health';
import { importHandlers } from './imports';
import { lifecycleHandlers } from './lifecycle';
import { recordHandlers } from './records';

export const handlers: Handlers = {
  ...appHandlers,
  ...recordHandlers,
  ...guardianHandlers,
  ...healthHandlers,
  ...datasetHandlers,
  ...importHandlers,
  ...lifecycleHandlers,
  ...curationHandlers,
};

/** The handler map with some handlers replaced (tests observe or stub a channel this way). */
export function buildHandlers(overrides: Partial<Handlers> = {}): Handlers {
  return { ...handlers, ...overrides };
}
