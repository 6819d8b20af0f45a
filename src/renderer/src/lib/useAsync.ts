// Small data hooks. Every view re-reads when the database changes (the client's onChange push of
// PRAGMA data_version), so what the plugin writes while the app is open shows up without a reload.
import { createContext, useCallback, useContext, useEffect, useRef, useState } from 'react';

export const DataVersionContext = createContext(0);
export const useDataVersion = () => useContext(DataVersionContext);

export interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** The value, at most once per `ms` (the last change always lands). */
export function useThrottled<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    if (ms <= 0) return setShown(value);
    const wait = last.current + ms - Date.now();
    if (wait <= 0) {
      last.current = Date.now();
      setShown(value);
      return;
    }
    const t = setTimeout(() => {
      last.current = Date.now();
      setShown(value);
    }, wait);
    return () => clearTimeout(t);
  }, [value, ms]);
  return shown;
}

/**
 * Runs `fn` when deps or the data version change; keeps the last data while reloading.
 * `throttleMs`: aggregate queries (counts, stats) re-run at most that often while the plugin writes.
 */
export function useAsync<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  deps: readonly unknown[],
  opts: { live?: boolean; skip?: boolean; throttleMs?: number } = {},
): AsyncState<T> {
  const version = useThrottled(useDataVersion(), opts.throttleMs ?? 0);
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: !opts.skip });
  const [nonce, setNonce] = useState(0);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const live = opts.live !== false;
  useEffect(() => {
    if (opts.skip) {
      setState({ data: undefined, error: undefined, loading: false });
      return;
    }
    const ctrl = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    fnRef.current(ctrl.signal).then(
      (data) => !ctrl.signal.aborted && setState({ data, error: undefined, loading: false }),
      (error) => !ctrl.signal.aborted && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => ctrl.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, nonce, live ? version : 0, opts.skip]);
  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { ...state, reload };
}

/** A mutation with its pending state and the last error, for buttons that call the API. */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>): {
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
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  const set = useCallback(
    (v: T | ((p: T) => T)) => {
      setValue((prev) => {
        const next = typeof v === 'function' ? (v as (p: T) => T)(prev) : v;
        try {
          localStorage.setItem(keyRef.current, JSON.stringify(next));
        } catch {
          /* storage full or disabled: the draft lives in memory only */
        }
        return next;
      });
    },
    [],
  );
  const clear = useCallback(() => {
    localStorage.removeItem(keyRef.current);
    setValue(initial);
    // eslint-disable-next-line react-hooks/exhaustive-deps
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
