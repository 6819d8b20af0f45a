// What the curator does to the queue: label (saved behind the next sample), edit, skip, bulk label,
// undo (asked of the server, which keeps the review log), and per-value PII decisions.
import { useCallback, type Dispatch, type SetStateAction } from 'react';
import type { AnnotationStatus } from '../../../../../shared/domain';
import type { PiiSpanDecision, ReviewFilter, SampleRow } from '../../../../../shared/contract';
import type { ApiClient } from '../../../lib/api';
import type { Action, QueueError } from '../useReviewQueue';
import type { DetailCache } from './useDetailCache';
import type { QueueRows } from './useQueueRows';

const STATUS_OF: Record<Action, AnnotationStatus> = { approve: 'approved', reject: 'rejected', needs_review: 'needs_review' };

/** The undo count, the times of actions (for throughput) and whether the last action was a bulk one. */
export interface ReviewHistory {
  setActionTimes: Dispatch<SetStateAction<number[]>>;
  setUndoable: Dispatch<SetStateAction<number>>;
  lastWasBulk: boolean;
  setLastWasBulk: Dispatch<SetStateAction<boolean>>;
}

export interface QueueActionsContext {
  api: ApiClient;
  q: QueueRows;
  details: DetailCache;
  history: ReviewHistory;
  setError: Dispatch<SetStateAction<QueueError | null>>;
  /** Merges a row into the list and into its cached detail. */
  patchRow: (row: SampleRow) => void;
}

/** Label, edit and skip the current sample. */
export function useLabelActions({ api, q, details, history, setError, patchRow }: QueueActionsContext) {
  const { pos, rowsRef, setRows, setPos } = q;
  const { fetchDetail } = details;
  const { setActionTimes, setUndoable, setLastWasBulk } = history;

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
    [api, pos, rowsRef, patchRow, setPos, setActionTimes, setLastWasBulk, setUndoable, setError],
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
    [api, pos, rowsRef, fetchDetail, patchRow, setUndoable, setError],
  );

  /** Gives the current sample back to the queue (for another curator, or later) and moves on. */
  const skip = useCallback(() => {
    const row = rowsRef.current[pos];
    if (!row) return;
    void api.call('review.release', { ids: [row.id] }).catch(() => undefined);
    setRows((r) => r.filter((x) => x.id !== row.id));
    setPos((p) => Math.max(0, Math.min(p, rowsRef.current.length - 2)));
  }, [api, pos, rowsRef, setRows, setPos]);

  return { act, edit, skip };
}

/** Undo of the last review, and bulk labels (which one undo takes back as a whole). */
export function useUndoAndBulk({ api, q, details, history, setError, patchRow }: QueueActionsContext) {
  const { pos, rowsRef, setRows, setPos, loadPage } = q;
  const { cache, fetchDetail } = details;
  const { setActionTimes, setUndoable, lastWasBulk, setLastWasBulk } = history;

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
  }, [
    api,
    pos,
    rowsRef,
    cache,
    fetchDetail,
    lastWasBulk,
    loadPage,
    patchRow,
    setRows,
    setPos,
    setUndoable,
    setActionTimes,
    setLastWasBulk,
    setError,
  ]);

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
    [api, cache, loadPage, setLastWasBulk, setUndoable, setPos, setError],
  );

  return { undo, bulk };
}

/** Marks one PII span keep or redact; the highlight changes before the server answers, and goes back if it refuses. */
export function useSpanDecision(api: ApiClient, details: DetailCache, setError: Dispatch<SetStateAction<QueueError | null>>) {
  const { cache, bump } = details;
  return useCallback(
    async (sampleId: string, spanId: string, decision: PiiSpanDecision) => {
      const d = cache.current.get(sampleId);
      if (d) {
        // Optimistic: the highlight and the local redacted preview change before the server answers.
        cache.current.set(sampleId, { ...d, piiSpans: d.piiSpans.map((s) => (s.id === spanId ? { ...s, decision } : s)) });
        bump();
      }
      try {
        const updated = await api.call('dataset.setPiiSpanDecision', { sampleId, spanId, decision });
        cache.current.set(sampleId, updated);
        bump();
      } catch (e) {
        if (d) cache.current.set(sampleId, d);
        bump();
        setError({ action: `Marking the ${decision === 'keep' ? 'span as not PII' : 'span for redaction'}`, error: e });
      }
    },
    [api, cache, bump, setError],
  );
}
