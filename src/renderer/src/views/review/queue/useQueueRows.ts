// The queue's rows, paged from review.queue (with its true size), the position in them, and the
// prefetch of full samples around the position and of the next page before the end is reached.
import { useCallback, useEffect, useRef, useState, type Dispatch, type SetStateAction } from 'react';
import type { QueueSort, ReviewFilter, SampleDetail, SampleRow } from '../../../../../shared/contract';
import type { ApiClient } from '../../../lib/api';
import type { QueueError } from '../useReviewQueue';
import type { DetailCache } from './useDetailCache';

const PAGE = 100;
const PREFETCH_AHEAD = 6;

export function useQueueRows(
  api: ApiClient,
  query: { filter: ReviewFilter; sort: QueueSort; focusId?: string },
  details: DetailCache,
  setError: Dispatch<SetStateAction<QueueError | null>>,
) {
  const [rows, setRows] = useState<SampleRow[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const filterJson = JSON.stringify([query.filter, query.sort]);
  const { focusId } = query;
  const [pos, setPos] = useState(0);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const { cache, fetchDetail } = details;

  const loadPage = useCallback(
    async (from: string | undefined) => {
      setLoading(true);
      try {
        const [f, order] = JSON.parse(filterJson) as [ReviewFilter, QueueSort];
        const page = await api.call('review.queue', { filter: f, sort: order, limit: PAGE, cursor: from });
        setTotal(page.total);
        let items: SampleRow[] = page.items;
        if (!from && focusId) {
          const focus = items.find((x) => x.id === focusId) ?? (await api.call('dataset.get', { id: focusId }));
          items = [focus, ...items.filter((x) => x.id !== focusId)];
          if ('piiSpans' in focus) cache.current.set(focus.id, focus as SampleDetail);
        }
        setRows((r) => (from ? r.concat(items) : items));
        setCursor(page.nextCursor);
        setError(null);
      } catch (e) {
        setError({ action: 'Loading the review queue', error: e });
      } finally {
        setLoading(false);
      }
    },
    [api, filterJson, focusId, cache, setError],
  );

  useEffect(() => {
    cache.current.clear();
    // The old list goes at once: holding its first rows while the new queue loads would reserve them.
    setRows([]);
    setTotal(null);
    setPos(0);
    void loadPage(undefined);
  }, [loadPage, cache]);

  // Prefetch around the cursor; fetch the next page of rows before the end is reached.
  useEffect(() => {
    for (let i = Math.max(0, pos - 1); i < Math.min(rows.length, pos + PREFETCH_AHEAD); i++) void fetchDetail(rows[i]!.id);
    if (cursor && !loading && pos >= rows.length - 20) void loadPage(cursor);
  }, [pos, rows, cursor, loading, fetchDetail, loadPage]);

  return { rows, setRows, rowsRef, total, setTotal, pos, setPos, cursor, loading, loadPage };
}

export type QueueRows = ReturnType<typeof useQueueRows>;
