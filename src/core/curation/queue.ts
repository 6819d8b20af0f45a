// The review queue: samples filtered (type, status, quality, PII, memory file, session, feedback
// signal, cluster), sorted, paged by keyset, with the queue's true size, leaving out samples another
// curator holds. The same filter drives bulk actions, so "approve what I see" means exactly that.
import { QUEUE_SORTS, reviewFilterSchema, type QueueSort, type ReviewFilter } from '../../shared/contract/curation';
import { AppError } from '../../shared/errors';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { decodeCursor, encodeCursor } from '../db/paging';
import { countReviewQueue, listReviewQueuePage, type ParsedReviewFilter, type QueueViewer } from '../db/repositories/reviewQueue';
import { sampleFromRow, type DatasetSample } from '../dataset/types';

export { QUEUE_SORTS };
export const queueFilterSchema = reviewFilterSchema;

export function parseQueueFilter(filter: unknown) {
  const r = queueFilterSchema.safeParse(filter ?? {});
  if (!r.success) {
    const i = r.error.issues[0];
    throw new AppError('Invalid', `review filter ${i?.path.join('.') || ''}: ${i?.message ?? 'invalid'}`);
  }
  if (r.data.minQuality !== undefined && r.data.maxQuality !== undefined && r.data.minQuality > r.data.maxQuality) {
    throw new AppError('Invalid', 'review filter: minQuality is above maxQuality');
  }
  return r.data;
}

/** The parsed filter and who is looking: what the queue repository needs to select the same samples. */
export function queueSelection(ctx: ServiceContext, filter: unknown): { filter: ParsedReviewFilter; viewer: QueueViewer } {
  return { filter: parseQueueFilter(filter), viewer: { me: actorOf(ctx), now: nowOf(ctx) } };
}

export interface QueuePage {
  items: DatasetSample[];
  nextCursor: string | null;
  /** Samples matching the filter right now (all pages), not counting ones others hold. */
  total: number;
}

export function listQueue(
  ctx: ServiceContext,
  input: { filter?: ReviewFilter; sort?: QueueSort; limit?: number; cursor?: string },
): QueuePage {
  const sort = input.sort ?? 'newest';
  if (!QUEUE_SORTS.includes(sort)) throw new AppError('Invalid', `review queue: sort must be one of ${QUEUE_SORTS.join(', ')}`);
  const limit = input.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new AppError('Invalid', 'review queue: limit must be 1 to 500');
  const { filter, viewer } = queueSelection(ctx, input.filter);
  const total = countReviewQueue(ctx.db, filter, viewer);
  const after = input.cursor ? decodeCursor(input.cursor, ['number', 'string']) : undefined;
  const rows = listReviewQueuePage(ctx.db, filter, viewer, { sort, limit: limit + 1, after: after ? [after[0], after[1]] : undefined });
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items: items.map(sampleFromRow), nextCursor: more && last ? encodeCursor([last._sort, last.id]) : null, total };
}
