// Full samples by id, fetched once each (concurrent asks share one call); a tick re-renders on arrival.
import { useCallback, useRef, useState, type Dispatch, type MutableRefObject, type SetStateAction } from 'react';
import type { SampleDetail } from '../../../../../shared/contract';
import type { ApiClient } from '../../../lib/api';
import type { QueueError } from '../useReviewQueue';

export interface DetailCache {
  cache: MutableRefObject<Map<string, SampleDetail>>;
  /** Fetches a sample unless cached or on its way; `force` reads it again. */
  fetchDetail: (id: string, force?: boolean) => Promise<void>;
  /** Re-renders after the cache was changed in place. */
  bump: () => void;
}

export function useDetailCache(api: ApiClient, setError: Dispatch<SetStateAction<QueueError | null>>): DetailCache {
  const [, setCacheTick] = useState(0);
  const cache = useRef(new Map<string, SampleDetail>());
  const pendingGets = useRef(new Map<string, Promise<void>>());
  const bump = useCallback(() => setCacheTick((t) => t + 1), []);

  const fetchDetail = useCallback(
    (id: string, force = false): Promise<void> => {
      if (!force && (cache.current.has(id) || pendingGets.current.has(id))) return pendingGets.current.get(id) ?? Promise.resolve();
      const p = api.call('dataset.get', { id }).then(
        (d) => {
          cache.current.set(id, d);
          setCacheTick((t) => t + 1);
        },
        (e) => setError({ action: 'Loading the sample', error: e }),
      );
      const tracked = p.finally(() => pendingGets.current.delete(id));
      pendingGets.current.set(id, tracked);
      return tracked;
    },
    [api, setError],
  );

  return { cache, fetchDetail, bump };
}
