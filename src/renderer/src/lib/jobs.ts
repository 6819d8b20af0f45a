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

let seq = 0;
export function startJob<C extends JobChannel>(
  api: ApiClient,
  label: string,
  channel: C,
  input: InputOf<C>,
  onProgress?: (done: number, total: number | null) => void,
): { key: string; promise: Promise<JobResultOf<C>>; cancel: () => void } {
  const key = `job-${++seq}`;
  const ctrl = new AbortController();
  const cancel = () => ctrl.abort();
  upsert({ key, label, done: 0, total: null, cancel });
  const promise = api
    .runJob(channel, input, {
      signal: ctrl.signal,
      onProgress: (s) => {
        upsert({ key, label: s.label ? `${label}: ${s.label}` : label, done: s.done, total: s.total, cancel });
        onProgress?.(s.done, s.total);
      },
    })
    .finally(() => remove(key));
  return { key, promise, cancel };
}
