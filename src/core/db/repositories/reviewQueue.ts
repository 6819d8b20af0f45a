// The review queue's SQL: a filter (as parsed by the curation service) becomes a WHERE clause over
// dataset_samples (alias s) with named parameters, leaving out excluded sessions and samples another
// curator holds; pages are keyset-paged on the sort expression and the id.
import type { z } from 'zod';
import type { QueueSort, reviewFilterSchema } from '../../../shared/contract/curation';
import type { DB } from '../connection';
import { stmt } from '../statements';
import { SAMPLE_COLUMNS, type StoredSampleRow } from './samples';

export type ParsedReviewFilter = z.output<typeof reviewFilterSchema>;

/** The acting curator and the time: holds are judged as of now, for this curator. */
export interface QueueViewer {
  me: string;
  now: number;
}

// Samples another curator holds right now. (A sample waiting for a second opinion is never held by
// its first curator: claimReservation and startSecondPass see to it.)
const NOT_HELD_BY_OTHERS = `NOT EXISTS (SELECT 1 FROM review_reservations rr
  WHERE rr.sample_id = s.id AND rr.curator <> @me AND rr.expires_at > @now)`;

function queueWhere(f: ParsedReviewFilter, viewer: QueueViewer): { where: string; params: Record<string, unknown> } {
  const params: Record<string, unknown> = { me: viewer.me, now: viewer.now };
  const secondPass = f.pass === 'second';
  const where = ['s.session_id NOT IN (SELECT session_id FROM excluded_sessions)', NOT_HELD_BY_OTHERS];
  const add = (sql: string, key: string, value: unknown) => {
    where.push(sql);
    params[key] = value;
  };
  if (secondPass) {
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
    add(
      "EXISTS (SELECT 1 FROM json_each(coalesce(s.feedback_signals, '[]')) j WHERE json_extract(j.value, '$.type') = @signal)",
      'signal',
      f.signal,
    );
  }
  return { where: where.join(' AND '), params };
}

/** Samples matching the filter right now (all pages), not counting ones others hold. */
export function countReviewQueue(db: DB, f: ParsedReviewFilter, viewer: QueueViewer): number {
  const { where, params } = queueWhere(f, viewer);
  return stmt(db, `SELECT count(*) FROM dataset_samples s WHERE ${where}`).pluck().get(params) as number;
}

/** Ids of the matching samples, at most `limit`. */
export function listReviewQueueIds(db: DB, f: ParsedReviewFilter, viewer: QueueViewer, limit: number): string[] {
  const { where, params } = queueWhere(f, viewer);
  return stmt(db, `SELECT s.id FROM dataset_samples s WHERE ${where} LIMIT @limit`)
    .pluck()
    .all({ ...params, limit }) as string[];
}

const SORT_SQL: Record<QueueSort, { expr: string; dir: 'ASC' | 'DESC' }> = {
  newest: { expr: 's.created_at', dir: 'DESC' },
  oldest: { expr: 's.created_at', dir: 'ASC' },
  quality_desc: { expr: 'coalesce(s.quality_score, -1)', dir: 'DESC' },
  quality_asc: { expr: 'coalesce(s.quality_score, -1)', dir: 'ASC' },
};

const PREFIXED_COLUMNS = SAMPLE_COLUMNS.split(',')
  .map((c) => `s.${c.trim()}`)
  .join(', ');

/** One page of the queue in sort order after the keyset position `after` ([sort value, id]), each row with its sort value. */
export function listReviewQueuePage(
  db: DB,
  f: ParsedReviewFilter,
  viewer: QueueViewer,
  page: { sort: QueueSort; limit: number; after?: [unknown, unknown] },
): Array<StoredSampleRow & { _sort: number }> {
  const { where, params } = queueWhere(f, viewer);
  const { expr, dir } = SORT_SQL[page.sort];
  let clause = where;
  if (page.after) {
    const op = dir === 'DESC' ? '<' : '>';
    clause += ` AND (${expr} ${op} @cv OR (${expr} = @cv AND s.id ${op} @cid))`;
    Object.assign(params, { cv: page.after[0], cid: page.after[1] });
  }
  const sql = `SELECT ${PREFIXED_COLUMNS}, ${expr} AS _sort FROM dataset_samples s WHERE ${clause} ORDER BY ${expr} ${dir}, s.id ${dir} LIMIT @limit`;
  return stmt<StoredSampleRow & { _sort: number }>(db, sql).all({ ...params, limit: page.limit });
}
