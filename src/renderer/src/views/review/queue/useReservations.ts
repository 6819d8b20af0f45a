// The current sample and the next ones are held for this curator (renewed while shown); rows another
// curator already holds leave the queue. Holds follow the cursor: a sample the cursor leaves behind
// (labelled, passed, or gone with a new filter) is given back at once, and so is everything held when
// the curator leaves Review. `api` must deliver calls in order (orderedClient): a hold that overtook
// the label before it would hold a sample already decided.
import { useCallback, useEffect, useRef } from 'react';
import type { ReserveResult } from '../../../../../shared/contract';
import type { ApiClient } from '../../../lib/api';
import type { QueueRows } from './useQueueRows';

const RESERVE_AHEAD = 3;
const RENEW_MS = 60_000;

type Rows = Pick<QueueRows, 'rows' | 'rowsRef' | 'pos' | 'setRows' | 'setTotal'>;

export function useReservations(api: ApiClient, q: Rows): void {
  const { rows, pos } = q;
  const reserveKey = rows
    .slice(pos, pos + RESERVE_AHEAD)
    .map((r) => r.id)
    .join(',');
  const heldRef = useRef<string[]>([]);
  const dropTaken = useDropTaken(q);
  useEffect(() => {
    const ids = reserveKey ? reserveKey.split(',') : [];
    const left = heldRef.current.filter((id) => !ids.includes(id));
    heldRef.current = ids;
    if (left.length) void api.call('review.release', { ids: left }).catch(() => undefined);
    if (!ids.length) return;
    // A failed hold only means another curator might see the sample too.
    const reserve = () => api.call('review.reserve', { ids }).then(dropTaken, () => undefined);
    void reserve();
    const renew = setInterval(() => void reserve(), RENEW_MS);
    return () => clearInterval(renew);
  }, [api, reserveKey, dropTaken]);
  // Leaving Review gives the held samples back at once instead of at their timeout.
  useEffect(
    () => () => {
      if (heldRef.current.length) void api.call('review.release', { ids: heldRef.current }).catch(() => undefined);
    },
    [api],
  );
}

/**
 * Takes the samples another curator holds out of the rows still ahead (the current one included),
 * whenever the answer comes: by then the cursor may have moved on, and a row ahead that someone else
 * holds must still go. Rows behind the cursor stay, so the current sample does not shift.
 */
function useDropTaken({ rowsRef, pos, setRows, setTotal }: Rows): (r: ReserveResult) => void {
  const posRef = useRef(pos);
  posRef.current = pos;
  return useCallback(
    (r: ReserveResult) => {
      const taken = new Set(r.taken.map((t) => t.id));
      const gone = new Set(rowsRef.current.filter((x, i) => i >= posRef.current && taken.has(x.id)).map((x) => x.id));
      if (!gone.size) return;
      setRows((list) => list.filter((x) => !gone.has(x.id)));
      setTotal((n) => (n == null ? n : Math.max(0, n - gone.size)));
    },
    [rowsRef, setRows, setTotal],
  );
}
