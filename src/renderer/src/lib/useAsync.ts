// Small data hooks. useAsync runs any async function as a TanStack query keyed by its call site and
// deps; it reloads when a change event names an area it reads (`areas`; default: every area, since
// the function may read anything). Prefer useApiQuery (lib/queries.ts) for a single API call.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useCallback, useId, useRef, useState, useEffect } from 'react';
import { DATA_AREAS, type DataArea } from '../../../shared/contract';
import { areasReadBy, withCallTracking, type QueryMeta } from './queries';

export interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs `fn` when deps change or an area it reads changes; keeps the last data while reloading.
 * `throttleMs`: aggregate queries (counts, stats) re-run at most that often while the plugin writes.
 * `live: false`: never reloaded by change events.
 */
export function useAsync<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  deps: readonly unknown[],
  opts: { live?: boolean; skip?: boolean; throttleMs?: number; areas?: readonly DataArea[] } = {},
): AsyncState<T> {
  const site = useId();
  const fnRef = useRef(fn);
  fnRef.current = fn;
  // Without declared areas, the areas of the channels the function called last time (every area until it ran).
  const learnt = useRef<readonly DataArea[]>(DATA_AREAS);
  const meta: QueryMeta = { areas: opts.live === false ? [] : (opts.areas ?? learnt.current), throttleMs: opts.throttleMs };
  const q = useQuery({
    queryKey: ['async', site, ...deps],
    queryFn: async ({ signal }) => {
      const { value, channels } = await withCallTracking(() => fnRef.current(signal));
      learnt.current = areasReadBy(channels);
      return value;
    },
    enabled: !opts.skip,
    placeholderData: keepPreviousData,
    // As before TanStack: a view that mounts reads fresh data (the cache only bridges the wait).
    refetchOnMount: 'always',
    meta,
  });
  const { refetch } = q;
  const reload = useCallback(() => void refetch(), [refetch]);
  return { data: opts.skip ? undefined : q.data, error: q.error ?? undefined, loading: !opts.skip && q.isFetching, reload };
}

/** A mutation with its pending state and the last error, for buttons that call the API. */
export function useAction<A extends unknown[], R>(
  fn: (...args: A) => Promise<R>,
): {
  run: (...args: A) => Promise<R | undefined>;
  pending: boolean;
  error: unknown;
  clearError: () => void;
} {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const run = useCallback(async (...args: A) => {
    setPending(true);
    setError(undefined);
    try {
      return await fnRef.current(...args);
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setPending(false);
    }
  }, []);
  return { run, pending, error, clearError: () => setError(undefined) };
}

/** localStorage-backed state, for drafts that must survive navigating away. */
export function useStoredState<T>(key: string, initial: T): [T, (v: T | ((p: T) => T)) => void, () => void, () => void] {
  const [value, setValue] = useState<T>(() => {
    try {
      const raw = localStorage.getItem(key);
      return raw ? (JSON.parse(raw) as T) : initial;
    } catch {
      return initial;
    }
  });
  const keyRef = useRef(key);
  useEffect(() => {
    if (keyRef.current !== key) {
      keyRef.current = key;
      try {
        const raw = localStorage.getItem(key);
        setValue(raw ? (JSON.parse(raw) as T) : initial);
      } catch {
        setValue(initial);
      }
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `initial` is the default for a new key, not an input to react to
  }, [key]);
  const set = useCallback((v: T | ((p: T) => T)) => {
    setValue((prev) => {
      const next = typeof v === 'function' ? (v as (p: T) => T)(prev) : v;
      try {
        localStorage.setItem(keyRef.current, JSON.stringify(next));
      } catch {
        /* storage full or disabled: the draft lives in memory only */
      }
      return next;
    });
  }, []);
  const clear = useCallback(() => {
    localStorage.removeItem(keyRef.current);
    setValue(initial);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `initial` is the default captured when the hook mounts
  }, []);
  /** Drops the stored copy but keeps what is on screen (after a save). */
  const forget = useCallback(() => localStorage.removeItem(keyRef.current), []);
  return [value, set, clear, forget];
}

/** The value, settled: changes only after `ms` without further changes (previews on typing). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}
