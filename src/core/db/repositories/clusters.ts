// Near-duplicate clusters as the curator sees them: a sample's cluster members, the curator's pick of the
// representative, and how many near-duplicates each listed sample has. Samples of excluded sessions are left out.
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface ClusterMemberRow {
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

/** The cluster a sample belongs to: its cluster id, or its own id when it leads (or is alone in) one. */
export function findClusterIdOfSample(db: DB, sampleId: string): string | undefined {
  return stmt<{ c: string }>(db, 'SELECT coalesce(cluster_id, id) AS c FROM dataset_samples WHERE id = ?').get(sampleId)?.c;
}

/** Up to 500 members of a cluster in collection order, with what decides its representative. */
export function listClusterMembers(db: DB, clusterId: string): ClusterMemberRow[] {
  return stmt<ClusterMemberRow>(
    db,
    `SELECT s.rowid AS r, s.id, s.sample_type, s.annotation_status, s.quality_score, s.created_at,
        (s.correction_id IS NOT NULL OR s.collection_strategy IN ('manual_correction', 'missed_write')) AS corrected,
        EXISTS (SELECT 1 FROM dataset_annotation_events e WHERE e.sample_id = s.id AND e.action = 'edit' AND e.undone_at IS NULL) AS edited,
        EXISTS (SELECT 1 FROM dataset_cluster_picks p WHERE p.sample_id = s.id AND p.cluster_id = @c) AS picked
       FROM dataset_samples s
       WHERE (s.cluster_id = @c OR s.id = @c) AND s.session_id NOT IN (SELECT session_id FROM excluded_sessions)
       ORDER BY s.rowid LIMIT 500`,
  ).all({ c: clusterId });
}

/** Records the curator's representative for a cluster, replacing an earlier pick. */
export function upsertClusterPick(db: DB, clusterId: string, sampleId: string, pickedBy: string, pickedAt: number): void {
  stmt(
    db,
    `INSERT INTO dataset_cluster_picks (cluster_id, sample_id, picked_by, picked_at) VALUES (?, ?, ?, ?)
        ON CONFLICT(cluster_id) DO UPDATE SET sample_id = excluded.sample_id, picked_by = excluded.picked_by, picked_at = excluded.picked_at`,
  ).run(clusterId, sampleId, pickedBy, pickedAt);
}

/** For each given sample in a cluster: how many other (non-excluded) samples share its cluster. */
export function countNearDuplicates(db: DB, sampleIds: readonly string[]): { id: string; n: number }[] {
  return stmt<{ id: string; n: number }>(
    db,
    `SELECT s.id, (SELECT count(*) FROM dataset_samples o WHERE o.cluster_id = s.cluster_id AND o.id <> s.id
          AND o.session_id NOT IN (SELECT session_id FROM excluded_sessions)) AS n
       FROM dataset_samples s WHERE s.id IN (SELECT value FROM json_each(?)) AND s.cluster_id IS NOT NULL`,
  ).all(JSON.stringify(sampleIds));
}
