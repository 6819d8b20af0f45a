// Long work (collect, export, import) runs as API jobs. This store tracks the ones this window started,
// so the status bar shows their progress and any view can cancel them.
import { useSyncExternalStore } from 'react';
import type { InputOf, JobChannel, JobResultOf } from '../../../shared/contract';
import type { ApiClient } from './api';

export interface TrackedJob {
  key: string;
  label: string;
  done: number;
  total: number | null;
  /** Cancel was asked for; the job still runs until it has stopped (it may be finishing a rebuild). */
  cancelling: boolean;
  cancel: () => void;
}

let jobs: TrackedJob[] = [];
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

function upsert(job: TrackedJob) {
  jobs = jobs.some((j) => j.key === job.key) ? jobs.map((j) => (j.key === job.key ? job : j)) : [...jobs, job];
  emit();
}
function remove(key: string) {
  jobs = jobs.filter((j) => j.key !== key);
  emit();
}

export function useJobs(): TrackedJob[] {
  return useSyncExternalStore(
    (cb) => {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    () => jobs,
  );
}

/** The tracked job with this key, while it runs (a view's own progress bar and its Cancel button). */
export function useJob(key: string | null): TrackedJob | undefined {
  return useJobs().find((j) => j.key === key);
}

let seq = 0;
/** Starts a job and tracks it until it has ended: progress and cancelling show in the status bar and in useJob(key). */
export function startJob<C extends JobChannel>(
  api: ApiClient,
  label: string,
  channel: C,
  input: InputOf<C>,
): { key: string; promise: Promise<JobResultOf<C>>; cancel: () => void } {
  const key = `job-${++seq}`;
  const ctrl = new AbortController();
  const current = () => jobs.find((j) => j.key === key);
  // shown at once: the job may take a while to reach its next stopping point
  const cancel = () => {
    const j = current();
    if (j && !j.cancelling) upsert({ ...j, cancelling: true });
    ctrl.abort();
  };
  upsert({ key, label, done: 0, total: null, cancelling: false, cancel });
  const promise = api
    .runJob(channel, input, {
      signal: ctrl.signal,
      onProgress: (s) => {
        const cancelling = s.cancelling || Boolean(current()?.cancelling);
        upsert({ key, label: s.label ? `${label}: ${s.label}` : label, done: s.done, total: s.total, cancelling, cancel });
      },
    })
    .finally(() => remove(key));
  return { key, promise, cancel };
}
