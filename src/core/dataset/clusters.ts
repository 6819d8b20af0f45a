// Near-duplicate clusters as a curator sees them (issue 12, item 7): the members of a sample's
// cluster, which one the export keeps and why, and the curator's own pick of the representative.
import type { SampleCluster, SampleClusterMember } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { actorOf, nowOf, type ServiceContext } from '../context';

/** The shapes the API returns (contract DTOs), so service and contract cannot drift apart. */
export type ClusterMember = SampleClusterMember;
export type ClusterView = SampleCluster;

interface MemberRow {
  id: string;
  sample_type: string;
  annotation_status: string;
  quality_score: number | null;
  corrected: number;
  edited: number;
  picked: number;
  created_at: number;
  r: number;
}

/** The cluster of a sample, its members in collection order (samples of excluded sessions left out). */
export function sampleCluster(ctx: ServiceContext, sampleId: string): ClusterView {
  const row = ctx.db.prepare('SELECT coalesce(cluster_id, id) AS c FROM dataset_samples WHERE id = ?').get(sampleId) as { c: string } | undefined;
  if (!row) throw new AppError('NotFound', `dataset sample ${sampleId} not found`);
  const rows = ctx.db
    .prepare(
      `SELECT s.rowid AS r, s.id, s.sample_type, s.annotation_status, s.quality_score, s.created_at,
        (s.correction_id IS NOT NULL OR s.collection_strategy IN ('manual_correction', 'missed_write')) AS corrected,
        EXISTS (SELECT 1 FROM dataset_annotation_events e WHERE e.sample_id = s.id AND e.action = 'edit' AND e.undone_at IS NULL) AS edited,
        EXISTS (SELECT 1 FROM dataset_cluster_picks p WHERE p.sample_id = s.id AND p.cluster_id = @c) AS picked
       FROM dataset_samples s
       WHERE (s.cluster_id = @c OR s.id = @c) AND s.session_id NOT IN (SELECT session_id FROM excluded_sessions)
       ORDER BY s.rowid LIMIT 500`,
    )
    .all({ c: row.c }) as MemberRow[];
  const members = rows.map((m) => ({
    id: m.id, sampleType: m.sample_type, annotationStatus: m.annotation_status, qualityScore: m.quality_score,
    corrected: m.corrected === 1, edited: m.edited === 1, picked: m.picked === 1, createdAt: m.created_at,
  }));
  const pick = members.find((m) => m.picked);
  const corrected = members.find((m) => m.corrected || m.edited);
  const rep = pick ?? corrected ?? members[0];
  const because: ClusterView['representativeBecause'] = pick ? 'pick' : corrected ? (corrected.corrected ? 'corrected' : 'edited') : 'first';
  return { clusterId: row.c, members, representativeId: rep?.id ?? sampleId, representativeBecause: because };
}

/** Makes a sample its cluster's representative (replacing an earlier pick). Returns the cluster. */
export function pickRepresentative(ctx: ServiceContext, sampleId: string): ClusterView {
  writeTx(ctx.db, () => {
    const row = ctx.db.prepare('SELECT coalesce(cluster_id, id) AS c FROM dataset_samples WHERE id = ?').get(sampleId) as { c: string } | undefined;
    if (!row) throw new AppError('NotFound', `dataset sample ${sampleId} not found`);
    ctx.db
      .prepare(`INSERT INTO dataset_cluster_picks (cluster_id, sample_id, picked_by, picked_at) VALUES (?, ?, ?, ?)
        ON CONFLICT(cluster_id) DO UPDATE SET sample_id = excluded.sample_id, picked_by = excluded.picked_by, picked_at = excluded.picked_at`)
      .run(row.c, sampleId, actorOf(ctx), nowOf(ctx));
  });
  return sampleCluster(ctx, sampleId);
}

/** How many other samples share each sample's cluster, for list views ("3 near-duplicates"). */
export function nearDuplicateCounts(ctx: ServiceContext, sampleIds: string[]): Map<string, number> {
  const out = new Map<string, number>();
  if (!sampleIds.length) return out;
  const rows = ctx.db
    .prepare(
      `SELECT s.id, (SELECT count(*) FROM dataset_samples o WHERE o.cluster_id = s.cluster_id AND o.id <> s.id
          AND o.session_id NOT IN (SELECT session_id FROM excluded_sessions)) AS n
       FROM dataset_samples s WHERE s.id IN (SELECT value FROM json_each(?)) AND s.cluster_id IS NOT NULL`,
    )
    .all(JSON.stringify(sampleIds)) as { id: string; n: number }[];
  for (const r of rows) out.set(r.id, r.n);
  return out;
}
