// Messages between the queued recorder (the plugin's thread) and its writer thread.

export type ToWorker = { type: 'events'; items: Array<{ seq: number; event: unknown }> } | { type: 'close' };

export type FromWorker =
  | { type: 'ready'; recovered: RecoveryReport }
  | { type: 'ack'; upTo: number; count: number; failed: Array<{ seq: number; message: string }> }
  | { type: 'closed' };

/** What the recorder found from a previous process that ended without close(). */
export interface RecoveryReport {
  /** Spool files written at exit by a process that still had events queued. */
  spoolFiles: number;
  replayed: number;
  alreadyRecorded: number;
  /** Events that process had dropped because its queue was full. */
  droppedBeforeCrash: number;
  failed: number;
}

export const SPOOL_PATTERN = /^recorder-spool-\d+-\d+\.jsonl$/;
export const spoolName = (pid: number, at: number) => `recorder-spool-${pid}-${at}.jsonl`;
