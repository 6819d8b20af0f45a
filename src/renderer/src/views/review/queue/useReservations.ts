// The current sample and the next ones are held for this curator (renewed while shown); rows another
// curator already holds leave the queue; leaving Review gives the held samples back at once.
import { useEffect, useRef } from 'react';
import type { ApiClient } from '../../../lib/api';
import type { QueueRows } from './useQueueRows';

const RESERVE_AHEAD = 3;
const RENEW_MS = 60_000;

export function useReservations(api: ApiClient, q: Pick<QueueRows, 'rows' | 'pos' | 'setRows' | 'setTotal'>): void {
  const { rows, pos, setRows, setTotal } = q;
  const reserveKey = rows
    .slice(pos, pos + RESERVE_AHEAD)
    .map((r) => r.id)
    .join(',');
  useEffect(() => {
    if (!reserveKey) return;
    let stop = false;
    const reserve = () =>
      api.call('review.reserve', { ids: reserveKey.split(',') }).then(
        (r) => {
          if (stop || !r.taken.length) return;
          const taken = new Set(r.taken.map((t) => t.id));
          setRows((list) => list.filter((x) => !taken.has(x.id)));
          setTotal((n) => (n == null ? n : Math.max(0, n - taken.size)));
        },
        () => undefined, // a failed hold only means another curator might see the sample too
      );
    void reserve();
    const renew = setInterval(() => void reserve(), RENEW_MS);
    return () => {
      stop = true;
      clearInterval(renew);
    };
  }, [api, reserveKey, setRows, setTotal]);
  // Leaving Review gives the held samples back at once instead of at their timeout.
  const heldRef = useRef('');
  heldRef.current = reserveKey;
  useEffect(
    () => () => {
      if (heldRef.current) void api.call('review.release', { ids: heldRef.current.split(',') }).catch(() => undefined);
    },
    [api],
  );
}
