// Public entry of the recorder library: `require('reflection-workbench/recorder')` or
// `import { createRecorder } from 'reflection-workbench/recorder'`. Built into dist/recorder by
// `npm run build:recorder` (scripts/build-recorder.mjs); docs/recorder.md is the integration guide.
export {
  createRecorder,
  QueuedRecorder,
  type QueuedRecorderOptions,
  type RecorderStats,
  type TurnRecord,
  type DecisionRecord,
  type WriteRecord,
} from './queued';
export type { RecoveryReport } from './protocol';
export type { RecorderEvent } from './events';
export {
  openRecorder,
  Recorder,
  RecorderCore,
  type RecordedWrite,
  type RecorderOptions,
  type RecorderCoreOptions,
} from '../core/recorder/recorder';
export type { SessionInput, TurnInput, ContextItemInput, DecisionInput, WriteInput } from '../core/recorder/schemas';
export { AppError } from '../shared/errors';
export * from '../shared/domain';
