// The review queue: samples filtered (type, status, quality, PII, memory file, session, feedback
// signal, cluster), sorted, paged by keyset, with the queue's true size, leaving out samples another
// curator holds. The same filter drives bulk actions, so "approve what I see" means exactly that.
import { QUEUE_SORTS, reviewFilterSchema, type QueueSort, type ReviewFilter } from '../../shared/contract/curation';
import { AppError } from '../../shared/errors';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { decodeCursor, encodeCursor } from '../db/paging';
import { SAMPLE_COLUMNS, sampleFromRow, type DatasetSample, type SampleRow } from '../dataset/types';
import { NOT_HELD_BY_OTHERS } from './reservations';

export { QUEUE_SORTS };
export const queueFilterSchema = reviewFilterSchema;
export type QueueFilter = ReviewFilter;

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

/** WHERE clause (alias s) and its named parameters for a filter, as seen by the acting curator. */
export function queueWhere(ctx: ServiceContext, filter: unknown): { where: string; params: Record<string, unknown> } {
  const f = parseQueueFilter(filter);
  const params: Record<string, unknown> = { me: actorOf(ctx), now: nowOf(ctx) };
  const f2 = f.pass === 'second';
  // In the second pass the first curator's own holds do not count: they are never served these samples.
  const held = f2
    ? `NOT EXISTS (SELECT 1 FROM review_reservations rr WHERE rr.sample_id = s.id AND rr.curator <> @me AND rr.expires_at > @now
        AND rr.curator <> (SELECT first_curator FROM review_second_pass p2 WHERE p2.sample_id = s.id))`
    : NOT_HELD_BY_OTHERS;
  const where = ['s.session_id NOT IN (SELECT session_id FROM excluded_sessions)', held];
  const add = (sql: string, key: string, value: unknown) => {
    where.push(sql);
    params[key] = value;
  };
  if (f2) {
    where.push('s.id IN (SELECT sample_id FROM review_second_pass WHERE second_label IS NULL AND first_curator <> @me)');
  } else if (f.status === 'open') where.push("s.annotation_status IN ('pending', 'needs_review')");
  else if (f.status !== 'all') add('s.annotation_status = @status', 'status', f.status);
  if (f.type) add('s.sample_type = @type', 'type', f.type);
  if (f.minQuality !== undefined) add('s.quality_score >= @minQ', 'minQ', f.minQuality);
  if (f.maxQuality !== undefined) add('s.quality_score <= @maxQ', 'maxQ', f.maxQuality);
  if (f.pii) where.push(`s.contains_pii = ${f.pii === 'with' ? 1 : 0}`);
  if (f.sessionId) add('s.session_id = @session', 'session', f.sessionId);
  if (f.clusterId) add('s.cluster_id = @cluster', 'cluster', f.clusterId);
  if (f.file) {
    add(
      `(s.audit_id IN (SELECT id FROM write_guardian_audit WHERE target_file = @file)
        OR s.decision_id IN (SELECT decision_id FROM write_guardian_audit WHERE target_file = @file AND decision_id IS NOT NULL))`,
      'file',
      f.file,
    );
  }
  if (f.signal) {
    add("EXISTS (SELECT 1 FROM json_each(coalesce(s.feedback_signals, '[]')) j WHERE json_extract(j.value, '$.type') = @signal)", 'signal', f.signal);
  }
  return { where: where.join(' AND '), params };
}

const SORT_SQL: Record<QueueSort, { expr: string; dir: 'ASC' | 'DESC' }> = {
  newest: { expr: 's.created_at', dir: 'DESC' },
  oldest: { expr: 's.created_at', dir: 'ASC' },
  quality_desc: { expr: 'coalesce(s.quality_score, -1)', dir: 'DESC' },
  quality_asc: { expr: 'coalesce(s.quality_score, -1)', dir: 'ASC' },
};

export interface QueuePage {
  items: DatasetSample[];
  nextCursor: string | null;
  /** Samples matching the filter right now (all pages), not counting ones others hold. */
  total: number;
}

export function listQueue(ctx: ServiceContext, input: { filter?: QueueFilter; sort?: QueueSort; limit?: number; cursor?: string }): QueuePage {
  const sort = input.sort ?? 'newest';
  if (!QUEUE_SORTS.includes(sort)) throw new AppError('Invalid', `review queue: sort must be one of ${QUEUE_SORTS.join(', ')}`);
  const limit = input.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new AppError('Invalid', 'review queue: limit must be 1 to 500');
  const { where, params } = queueWhere(ctx, input.filter);
  const total = (ctx.db.prepare(`SELECT count(*) AS n FROM dataset_samples s WHERE ${where}`).get(params) as { n: number }).n;
  const { expr, dir } = SORT_SQL[sort];
  let page = where;
  if (input.cursor) {
    const [v, id] = decodeCursor(input.cursor, ['number', 'string']) ?? [];
    const op = dir === 'DESC' ? '<' : '>';
    page += ` AND (${expr} ${op} @cv OR (${expr} = @cv AND s.id ${op} @cid))`;
    Object.assign(params, { cv: v, cid: id });
  }
  const cols = SAMPLE_COLUMNS.split(',').map((c) => `s.${c.trim()}`).join(', ');
  const rows = ctx.db
    .prepare(`SELECT ${cols}, ${expr} AS _sort FROM dataset_samples s WHERE ${page} ORDER BY ${expr} ${dir}, s.id ${dir} LIMIT @limit`)
    .all({ ...params, limit: limit + 1 }) as (SampleRow & { _sort: number })[];
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items: items.map(sampleFromRow), nextCursor: more && last ? encodeCursor([last._sort, last.id]) : null, total };
}
