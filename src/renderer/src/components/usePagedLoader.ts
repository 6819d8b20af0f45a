// The pages behind PagedList: keyset pages appended as the viewport nears the end, one request in
// flight (a reset aborts it), and a reload on database changes to the areas the rows show.
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { DATA_AREAS, type DataArea } from '../../../shared/contract';
import { useAreaChanges } from '../lib/queries';

export interface PageResult<T, C> {
  items: T[];
  next: C | null | undefined;
}

export interface ListState<T, C> {
  items: T[];
  cursor: C | null | undefined;
  done: boolean;
  loading: boolean;
  error: unknown;
}

export interface PagedLoaderOptions<T, C> {
  resetKey: string;
  fetchPage: (cursor: C | undefined, signal: AbortSignal) => Promise<PageResult<T, C>>;
  scrollRef: RefObject<HTMLDivElement | null>;
  estimateSize: number;
  areas?: readonly DataArea[];
}

export function usePagedLoader<T, C>({ resetKey, fetchPage, scrollRef, estimateSize, areas }: PagedLoaderOptions<T, C>) {
  const [state, setState] = useState<ListState<T, C>>({ items: [], cursor: undefined, done: false, loading: true, error: undefined });
  const [fresh, setFresh] = useState(false);
  const stateRef = useRef(state);
  stateRef.current = state;
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;
  const inflight = useRef<AbortController | null>(null);

  const loadMore = useCallback((reset: boolean) => {
    const s = stateRef.current;
    if (!reset && (s.done || inflight.current)) return;
    inflight.current?.abort();
    const ctrl = new AbortController();
    inflight.current = ctrl;
    setState((p) => ({ ...p, loading: true, error: undefined }));
    fetchRef.current(reset ? undefined : (s.cursor ?? undefined), ctrl.signal).then(
      (page) => {
        if (ctrl.signal.aborted) return;
        inflight.current = null;
        setState((p) => ({
          items: reset ? page.items : p.items.concat(page.items),
          cursor: page.next,
          done: page.next == null,
          loading: false,
          error: undefined,
        }));
      },
      (error) => {
        if (ctrl.signal.aborted) return;
        inflight.current = null;
        setState((p) => ({ ...p, loading: false, error, done: true }));
      },
    );
  }, []);

  useEffect(() => {
    scrollRef.current?.scrollTo({ top: 0 });
    setFresh(false);
    loadMore(true);
    return () => inflight.current?.abort();
  }, [resetKey, loadMore, scrollRef]);

  // On a database change: near the top, reload quietly; deep in the list, offer to reload rather than
  // yank the rows from under the curator.
  useAreaChanges(areas ?? DATA_AREAS, () => {
    if ((scrollRef.current?.scrollTop ?? 0) < estimateSize * 5) loadMore(true);
    else setFresh(true);
  });

  /** The "new data" banner's action: back to the top, first page again. */
  const showLatest = useCallback(() => {
    setFresh(false);
    loadMore(true);
    scrollRef.current?.scrollTo({ top: 0 });
  }, [loadMore, scrollRef]);

  return { state, loadMore, fresh, showLatest };
}
