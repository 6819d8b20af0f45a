// The review queue: a window of sample rows from review.queue (filtered, sorted, with its true size),
// the current position, and a cache of full samples prefetched ahead of the cursor, so the next sample
// is on screen the moment a key is hit. The current sample and the next two are reserved for this
// curator (others are not served them); skip gives the current one back. Every action is saved at once
// through the API; undo asks the server (it keeps the review log), so it also works after a reload.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AnnotationStatus } from '../../../../shared/domain';
import type { PiiSpanDecision, QueueSort, ReviewFilter, SampleDetail, SampleRow } from '../../../../shared/contract';
import type { WorkbenchApi } from '../../lib/api';

const PAGE = 100;
const PREFETCH_AHEAD = 6;
const RESERVE_AHEAD = 3;
const RENEW_MS = 60_000;

export type Action = 'approve' | 'reject' | 'needs_review';

const STATUS_OF: Record<Action, AnnotationStatus> = { approve: 'approved', reject: 'rejected', needs_review: 'needs_review' };

export interface QueueError {
  action: string;
  error: unknown;
}

/** `focusId`: open the queue on this sample (a link from elsewhere), whatever its status. */
export function useReviewQueue(api: WorkbenchApi, filter: ReviewFilter, sort: QueueSort, focusId?: string) {
  const [rows, setRows] = useState<SampleRow[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [lastWasBulk, setLastWasBulk] = useState(false);
  const filterJson = JSON.stringify([filter, sort]);
  const [pos, setPos] = useState(0);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<QueueError | null>(null);
  const [, setCacheTick] = useState(0);
  const cache = useRef(new Map<string, SampleDetail>());
  const pendingGets = useRef(new Map<string, Promise<void>>());
  const [actionTimes, setActionTimes] = useState<number[]>([]);
  const [undoable, setUndoable] = useState(0);
  const rowsRef = useRef(rows);
  rowsRef.current = rows;

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
    [api],
  );

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
    [api, filterJson, focusId],
  );

  useEffect(() => {
    cache.current.clear();
    // The old list goes at once: holding its first rows while the new queue loads would reserve them.
    setRows([]);
    setTotal(null);
    setPos(0);
    void loadPage(undefined);
  }, [loadPage]);

  // Prefetch around the cursor; fetch the next page of rows before the end is reached.
  useEffect(() => {
    for (let i = Math.max(0, pos - 1); i < Math.min(rows.length, pos + PREFETCH_AHEAD); i++) void fetchDetail(rows[i]!.id);
    if (cursor && !loading && pos >= rows.length - 20) void loadPage(cursor);
  }, [pos, rows, cursor, loading, fetchDetail, loadPage]);

  // Hold the current sample and the next ones; drop any another curator already holds.
  const reserveKey = rows.slice(pos, pos + RESERVE_AHEAD).map((r) => r.id).join(',');
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
  }, [api, reserveKey]);
  // Leaving Review gives the held samples back at once instead of at their timeout.
  const heldRef = useRef('');
  heldRef.current = reserveKey;
  useEffect(
    () => () => {
      if (heldRef.current) void api.call('review.release', { ids: heldRef.current.split(',') }).catch(() => undefined);
    },
    [api],
  );

  const current = rows[pos];
  const detail = current ? cache.current.get(current.id) : undefined;

  const patchRow = (row: SampleRow) => {
    setRows((r) => r.map((x) => (x.id === row.id ? { ...x, ...row } : x)));
    const d = cache.current.get(row.id);
    if (d) cache.current.set(row.id, { ...d, ...row });
  };

  const move = useCallback((delta: number) => {
    setPos((p) => Math.max(0, Math.min(rowsRef.current.length - 1, p + delta)));
  }, []);

  /** Saves the label and moves on at once; the save runs behind the next sample. */
  const act = useCallback(
    (action: Action, extra?: { notes?: string; reason?: string }) => {
      const row = rowsRef.current[pos];
      if (!row) return;
      const before = row.annotationStatus;
      patchRow({ ...row, annotationStatus: STATUS_OF[action] });
      setPos((p) => Math.min(rowsRef.current.length - 1, p + 1));
      setActionTimes((t) => [...t, Date.now()]);
      setLastWasBulk(false);
      api.call('dataset.review', { id: row.id, action, ...extra }).then(
        (out) => {
          patchRow(out.sample);
          setUndoable((n) => n + 1);
        },
        (e) => {
          patchRow({ ...row, annotationStatus: before });
          setError({ action: `Saving "${action.replace('_', ' ')}" for sample ${row.id}`, error: e });
        },
      );
    },
    [api, pos],
  );

  const edit = useCallback(
    async (content: unknown) => {
      const row = rowsRef.current[pos];
      if (!row) return false;
      try {
        const out = await api.call('dataset.review', { id: row.id, action: 'edit', content });
        patchRow(out.sample);
        await fetchDetail(row.id, true);
        setUndoable((n) => n + 1);
        return true;
      } catch (e) {
        setError({ action: `Saving the edit of sample ${row.id}`, error: e });
        return false;
      }
    },
    [api, pos, fetchDetail],
  );

  /** Undoes the last review recorded on the server (also one made before a reload) and shows that sample. */
  const undo = useCallback(async () => {
    try {
      const out = await api.call('dataset.undo', {});
      if (out.sample && lastWasBulk) {
        // A bulk action came back as a whole: the queue is a different list now.
        setLastWasBulk(false);
        cache.current.clear();
        setPos(0);
        await loadPage(undefined);
        return;
      }
      if (!out.sample) {
        setError({ action: 'Undo', error: new Error('nothing to undo') });
        return;
      }
      const sample = out.sample;
      const index = rowsRef.current.findIndex((r) => r.id === sample.id);
      if (index >= 0) {
        patchRow(sample);
        setPos(index);
      } else {
        setRows((r) => {
          const next = r.slice();
          next.splice(pos, 0, sample);
          return next;
        });
      }
      setUndoable((n) => Math.max(0, n - 1));
      setActionTimes((t) => t.slice(0, -1));
      await fetchDetail(sample.id, true);
    } catch (e) {
      setError({ action: 'Undo', error: e });
    }
  }, [api, pos, fetchDetail, lastWasBulk, loadPage]);

  /** Gives the current sample back to the queue (for another curator, or later) and moves on. */
  const skip = useCallback(() => {
    const row = rowsRef.current[pos];
    if (!row) return;
    void api.call('review.release', { ids: [row.id] }).catch(() => undefined);
    setRows((r) => r.filter((x) => x.id !== row.id));
    setPos((p) => Math.max(0, Math.min(p, rowsRef.current.length - 2)));
  }, [api, pos]);

  /** Labels every sample of the filter (or cluster); one undo takes the batch back. */
  const bulk = useCallback(
    async (bulkFilter: ReviewFilter, action: Action, reason?: string) => {
      try {
        const out = await api.call('review.bulk', { filter: bulkFilter, action, reason });
        setLastWasBulk(true);
        setUndoable((n) => n + 1);
        cache.current.clear();
        setPos(0);
        await loadPage(undefined);
        return out.count;
      } catch (e) {
        setError({ action: `Bulk "${action.replace('_', ' ')}"`, error: e });
        return null;
      }
    },
    [api, loadPage],
  );

  /** Re-reads one sample (after a per-value PII decision changed it on the server). */
  const refreshDetail = useCallback((id: string) => fetchDetail(id, true), [fetchDetail]);
  const forgetDetails = useCallback(() => cache.current.clear(), []);

  const setSpanDecision = useCallback(
    async (sampleId: string, spanId: string, decision: PiiSpanDecision) => {
      const d = cache.current.get(sampleId);
      if (d) {
        // Optimistic: the highlight and the local redacted preview change before the server answers.
        cache.current.set(sampleId, { ...d, piiSpans: d.piiSpans.map((s) => (s.id === spanId ? { ...s, decision } : s)) });
        setCacheTick((t) => t + 1);
      }
      try {
        const updated = await api.call('dataset.setPiiSpanDecision', { sampleId, spanId, decision });
        cache.current.set(sampleId, updated);
        setCacheTick((t) => t + 1);
      } catch (e) {
        if (d) cache.current.set(sampleId, d);
        setCacheTick((t) => t + 1);
        setError({ action: `Marking the ${decision === 'keep' ? 'span as not PII' : 'span for redaction'}`, error: e });
      }
    },
    [api],
  );

  return {
    rows,
    total,
    pos,
    skip,
    bulk,
    refreshDetail,
    forgetDetails,
    lastWasBulk,
    current,
    detail,
    loading,
    hasMore: cursor != null,
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
