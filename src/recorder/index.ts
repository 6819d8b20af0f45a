// Public entry of the recorder library: `import { openRecorder } from 'reflection-workbench/recorder'`.
export { openRecorder, Recorder, RecorderCore, type RecordedWrite, type RecorderOptions, type RecorderCoreOptions } from '../main/recorder/recorder';
export type { SessionInput, TurnInput, ContextItemInput, DecisionInput, WriteInput } from '../main/recorder/schemas';
export { AppError } from '../shared/errors';
export * from '../shared/domain';
