// Bulk review: one label for every sample a filter (or a near-duplicate cluster) selects, saved as one
// batch of review events so that one undo takes the whole batch back.
import { ulid } from 'ulid';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import type { ServiceContext } from '../context';
import { applyStatusInTx, type StatusAction } from '../dataset/review';
import { countReviewQueue, listReviewQueueIds } from '../db/repositories/reviewQueue';
import { queueSelection } from './queue';
import type { BulkResult, ReviewFilter } from '../../shared/contract/curation';

export const BULK_LIMIT = 20_000;

export interface BulkInput {
  filter: ReviewFilter;
  action: StatusAction;
  reason?: string;
  notes?: string;
  /** Count only: what the action would touch. */
  dryRun?: boolean;
}

export function bulkReview(ctx: ServiceContext, input: BulkInput): BulkResult {
  if (!['approve', 'reject', 'needs_review'].includes(input.action))
    throw new AppError('Invalid', 'bulk review: action must be approve, reject or needs_review');
  const { filter, viewer } = queueSelection(ctx, input.filter);
  if (input.dryRun) return { batchId: null, count: countReviewQueue(ctx.db, filter, viewer), dryRun: true };
  const batchId = ulid();
  const count = writeTx(ctx.db, () => {
    const ids = listReviewQueueIds(ctx.db, filter, viewer, BULK_LIMIT + 1);
    if (ids.length > BULK_LIMIT)
      throw new AppError('Invalid', `bulk review: the filter selects more than ${BULK_LIMIT} samples; narrow it`);
    for (const id of ids) applyStatusInTx(ctx, id, { action: input.action, reason: input.reason, notes: input.notes, batchId });
    return ids.length;
  });
  return { batchId: count ? batchId : null, count, dryRun: false };
}
