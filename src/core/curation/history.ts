// The acting curator's last review decisions, newest first, a bulk action counted as one, so the
// review view can jump back to any of them.
import type { HistoryEntryDto } from '../../shared/contract/curation';
import { actorOf, type ServiceContext } from '../context';

export type HistoryEntry = HistoryEntryDto;

export function reviewHistory(ctx: ServiceContext, limit = 20): HistoryEntry[] {
  const rows = ctx.db
    .prepare(
      `SELECT max(e.seq) AS seq, e.sample_id AS sampleId, s.sample_type AS sampleType, e.action, e.reason, count(*) AS count,
         e.batch_id AS batchId, max(e.created_at) AS at, max(e.undone_at IS NOT NULL) AS undone
       FROM (SELECT * FROM dataset_annotation_events WHERE actor = @me ORDER BY seq DESC LIMIT @scan) e
       JOIN dataset_samples s ON s.id = e.sample_id
       GROUP BY coalesce(e.batch_id, 'seq:' || e.seq) ORDER BY seq DESC LIMIT @limit`,
    )
    .all({ me: actorOf(ctx), limit, scan: 5000 }) as (Omit<HistoryEntry, 'undone'> & { undone: number })[];
  return rows.map((r) => ({ ...r, undone: r.undone === 1 }));
}
