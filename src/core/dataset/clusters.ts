// Near-duplicate clusters as a curator sees them (issue 12, item 7): the members of a sample's
// cluster, which one the export keeps and why, and the curator's own pick of the representative.
import type { SampleCluster } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { countNearDuplicates, findClusterIdOfSample, listClusterMembers, upsertClusterPick } from '../db/repositories/clusters';
import { actorOf, nowOf, type ServiceContext } from '../context';

/** The shapes the API returns (contract DTOs), so service and contract cannot drift apart. */

/** The cluster of a sample, its members in collection order (samples of excluded sessions left out). */
export function sampleCluster(ctx: ServiceContext, sampleId: string): SampleCluster {
  const clusterId = findClusterIdOfSample(ctx.db, sampleId);
  if (clusterId === undefined) throw new AppError('NotFound', `dataset sample ${sampleId} not found`);
  const members = listClusterMembers(ctx.db, clusterId).map((m) => ({
    id: m.id,
    sampleType: m.sample_type,
    annotationStatus: m.annotation_status,
    qualityScore: m.quality_score,
    corrected: m.corrected === 1,
    edited: m.edited === 1,
    picked: m.picked === 1,
    createdAt: m.created_at,
  }));
  const pick = members.find((m) => m.picked);
  const corrected = members.find((m) => m.corrected || m.edited);
  const rep = pick ?? corrected ?? members[0];
  const because: SampleCluster['representativeBecause'] = pick
    ? 'pick'
    : corrected
      ? corrected.corrected
        ? 'corrected'
        : 'edited'
      : 'first';
  return { clusterId, members, representativeId: rep?.id ?? sampleId, representativeBecause: because };
}

/** Makes a sample its cluster's representative (replacing an earlier pick). Returns the cluster. */
export function pickRepresentative(ctx: ServiceContext, sampleId: string): SampleCluster {
  writeTx(ctx.db, () => {
    const clusterId = findClusterIdOfSample(ctx.db, sampleId);
    if (clusterId === undefined) throw new AppError('NotFound', `dataset sample ${sampleId} not found`);
    upsertClusterPick(ctx.db, clusterId, sampleId, actorOf(ctx), nowOf(ctx));
  });
  return sampleCluster(ctx, sampleId);
}

/** How many other samples share each sample's cluster, for list views ("3 near-duplicates"). */
export function nearDuplicateCounts(ctx: ServiceContext, sampleIds: string[]): Map<string, number> {
  const out = new Map<string, number>();
  if (!sampleIds.length) return out;
  for (const r of countNearDuplicates(ctx.db, sampleIds)) out.set(r.id, r.n);
  return out;
}
