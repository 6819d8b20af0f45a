// The review queue: a window of sample rows from dataset.list, the current position, and a cache of
// full samples prefetched ahead of the cursor, so the next sample is on screen the moment a key is hit.
// Every action is saved at once through the API; undo asks the server (it keeps the review log), so it
// also works after a reload.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AnnotationStatus } from '../../../../shared/domain';
import type { PiiSpanDecision, SampleDetail, SampleRow } from '../../../../shared/contract';
import type { WorkbenchApi } from '../../lib/api';

const PAGE = 100;
const PREFETCH_AHEAD = 6;

export type QueueFilter = 'pending' | 'needs_review' | 'all';
type Action = 'approve' | 'reject' | 'needs_review';

const STATUS_OF: Record<Action, AnnotationStatus> = { approve: 'approved', reject: 'rejected', needs_review: 'needs_review' };

export interface QueueError {
  action: string;
  error: unknown;
}

/** `focusId`: open the queue on this sample (a link from elsewhere), whatever its status. */
export function useReviewQueue(api: WorkbenchApi, filter: QueueFilter, focusId?: string) {
  const [rows, setRows] = useState<SampleRow[]>([]);
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
        const page = await api.call('dataset.list', { limit: PAGE, cursor: from, status: filter === 'all' ? undefined : filter });
        let items = page.items;
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
    [api, filter, focusId],
  );

  useEffect(() => {
    cache.current.clear();
    setPos(0);
    void loadPage(undefined);
  }, [loadPage]);

  // Prefetch around the cursor; fetch the next page of rows before the end is reached.
  useEffect(() => {
    for (let i = Math.max(0, pos - 1); i < Math.min(rows.length, pos + PREFETCH_AHEAD); i++) void fetchDetail(rows[i].id);
    if (cursor && !loading && pos >= rows.length - 20) void loadPage(cursor);
  }, [pos, rows, cursor, loading, fetchDetail, loadPage]);

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
    (action: Action, extra?: { content?: unknown; notes?: string }) => {
      const row = rowsRef.current[pos];
      if (!row) return;
      const before = row.annotationStatus;
      patchRow({ ...row, annotationStatus: STATUS_OF[action] });
      setPos((p) => Math.min(rowsRef.current.length - 1, p + 1));
      setActionTimes((t) => [...t, Date.now()]);
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
    // eslint-disable-next-line react-hooks/exhaustive-deps
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
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [api, pos, fetchDetail],
  );

  /** Undoes the last review recorded on the server (also one made before a reload) and shows that sample. */
  const undo = useCallback(async () => {
    try {
      const out = await api.call('dataset.undo', {});
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
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, pos, fetchDetail]);

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
    pos,
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
  const minutes = (recent[recent.length - 1] - recent[0]) / 60_000;
  return minutes > 0 ? (recent.length - 1) / minutes : null;
}
