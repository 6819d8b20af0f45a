// The review queue: a window of sample rows from review.queue (filtered, sorted, with its true size),
// the current position, and a cache of full samples prefetched ahead of the cursor, so the next sample
// is on screen the moment a key is hit. The current sample and the next two are reserved for this
// curator (others are not served them); a sample the cursor leaves is given back. Every action is
// saved at once through the API; undo asks the server (it keeps the review log), so it also works
// after a reload.
import { useCallback, useState } from 'react';
import type { QueueSort, ReviewFilter, SampleRow } from '../../../../shared/contract';
import type { ApiClient } from '../../lib/api';
import { orderedClient } from '../../lib/orderedApi';
import { useDetailCache } from './queue/useDetailCache';
import { useQueueRows } from './queue/useQueueRows';
import { useReservations } from './queue/useReservations';
import { useLabelActions, useSpanDecision, useUndoAndBulk, type QueueActionsContext } from './queue/useReviewActions';

export type Action = 'approve' | 'reject' | 'needs_review';

export interface QueueError {
  action: string;
  error: unknown;
}

/** `focusId`: open the queue on this sample (a link from elsewhere), whatever its status. */
export function useReviewQueue(api: ApiClient, filter: ReviewFilter, sort: QueueSort, focusId?: string) {
  const [error, setError] = useState<QueueError | null>(null);
  const [lastWasBulk, setLastWasBulk] = useState(false);
  const [actionTimes, setActionTimes] = useState<number[]>([]);
  const [undoable, setUndoable] = useState(0);
  const details = useDetailCache(api, setError);
  const q = useQueueRows(api, { filter, sort, focusId }, details, setError);
  // Holds, labels, skips and undos reach the server in the order the curator made them.
  const actions = orderedClient(api);
  useReservations(actions, q);
  const { cache, fetchDetail } = details;
  const { rows, pos, rowsRef, setRows, setPos, loadPage } = q;

  const patchRow = useCallback(
    (row: SampleRow) => {
      setRows((r) => r.map((x) => (x.id === row.id ? { ...x, ...row } : x)));
      const d = cache.current.get(row.id);
      if (d) cache.current.set(row.id, { ...d, ...row });
    },
    [setRows, cache],
  );
  const move = useCallback(
    (delta: number) => setPos((p) => Math.max(0, Math.min(rowsRef.current.length - 1, p + delta))),
    [setPos, rowsRef],
  );
  const ctx: QueueActionsContext = {
    api: actions,
    q,
    details,
    history: { setActionTimes, setUndoable, lastWasBulk, setLastWasBulk },
    setError,
    patchRow,
  };
  const { act, edit, skip } = useLabelActions(ctx);
  const { undo, bulk } = useUndoAndBulk(ctx);
  const setSpanDecision = useSpanDecision(api, details, setError);
  /** Re-reads one sample (after a per-value PII decision changed it on the server). */
  const refreshDetail = useCallback((id: string) => fetchDetail(id, true), [fetchDetail]);
  const forgetDetails = useCallback(() => cache.current.clear(), [cache]);

  const current = rows[pos];
  return {
    rows,
    total: q.total,
    pos,
    skip,
    bulk,
    refreshDetail,
    forgetDetails,
    lastWasBulk,
    current,
    detail: current ? cache.current.get(current.id) : undefined,
    loading: q.loading,
    hasMore: q.cursor != null,
    error,
    clearError: () => setError(null),
    move,
    act,
    edit,
    undo,
    undoable,
    setSpanDecision,
    actionTimes,
    reload: () => void loadPage(undefined),
  };
}

/** Samples per minute over the last five minutes of this sitting. */
export function throughput(times: number[], now = Date.now()): number | null {
  const recent = times.filter((t) => now - t < 5 * 60_000);
  if (recent.length < 2) return null;
  const minutes = (recent[recent.length - 1]! - recent[0]!) / 60_000; // at least two, checked above
  return minutes > 0 ? (recent.length - 1) / minutes : null;
}
