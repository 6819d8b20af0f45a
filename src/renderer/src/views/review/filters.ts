// The review queue's filter and sort, kept in the URL (#/review?type=…&sort=…) so a reload, a link or
// the back button shows the same queue.
import { ANNOTATION_STATUSES, MEMORY_FILES, SAMPLE_TYPES } from '../../../../shared/domain';
import { FEEDBACK_KINDS, QUEUE_SORTS, type QueueSort, type ReviewFilter } from '../../../../shared/contract';

export const STATUS_OPTIONS = ['pending', 'open', ...ANNOTATION_STATUSES.filter((s) => s !== 'pending'), 'all', 'second'] as const;
export const STATUS_LABEL: Record<(typeof STATUS_OPTIONS)[number], string> = {
  open: 'to review (pending + needs review)',
  pending: 'pending',
  needs_review: 'needs review',
  approved: 'approved',
  rejected: 'rejected',
  auto_approved: 'auto-approved',
  all: 'all samples',
  second: 'second pass (for me)',
};
export const SORT_LABEL: Record<QueueSort, string> = {
  newest: 'newest first',
  oldest: 'oldest first',
  quality_desc: 'best quality first',
  quality_asc: 'lowest quality first',
};

const oneOf = <T extends string>(list: readonly T[], v: string | undefined): T | undefined =>
  v && (list as readonly string[]).includes(v) ? (v as T) : undefined;
const quality = (v: string | undefined) => {
  const n = v === undefined || v === '' ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : undefined;
};

/** URL params → the API's filter (unknown values are dropped, never sent). Legacy ?status=pending still works. */
export function filterFromParams(p: Record<string, string>): { filter: ReviewFilter; sort: QueueSort } {
  // Pending first, as always; 'open' adds the samples flagged needs review.
  const status = oneOf(STATUS_OPTIONS, p.status) ?? 'pending';
  const filter: ReviewFilter = {
    status: status === 'second' ? 'all' : status,
    pass: status === 'second' ? 'second' : 'first',
    type: oneOf(SAMPLE_TYPES, p.type),
    minQuality: quality(p.minq),
    maxQuality: quality(p.maxq),
    pii: oneOf(['with', 'without'] as const, p.pii),
    file: oneOf(MEMORY_FILES, p.file),
    sessionId: p.session || undefined,
    signal: oneOf(FEEDBACK_KINDS, p.signal),
    clusterId: p.cluster || undefined,
  };
  return { filter, sort: oneOf(QUEUE_SORTS, p.sort) ?? 'newest' };
}

/** Params that narrow the queue beyond its status: shown as "filters on" and cleared together. */
export const NARROWING_PARAMS = ['type', 'minq', 'maxq', 'pii', 'file', 'session', 'signal', 'cluster'] as const;

export const filterKey = (f: ReviewFilter, sort: QueueSort) => JSON.stringify([f, sort]);
