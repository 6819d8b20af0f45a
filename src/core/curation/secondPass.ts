// Second pass: labelled samples (all, or a random share) go to a queue that a curator other than the
// first one labels again. The pairs give agreement figures; disagreements wait for a lead's decision.
import { createHash } from 'node:crypto';
import type { AgreementReport } from '../../shared/contract/curation';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import {
  countSecondPassAdjudicated,
  countSecondPassWaiting,
  deleteReservation,
  findSecondPass,
  insertSecondPass,
  listOpenDisagreements,
  listReviewerActionCounts,
  listSamplesForSecondPass,
  listSecondPassCurators,
  listSecondPassLabelPairs,
  markSecondPassAdjudicated,
} from '../db/repositories/reviewPasses';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { applyStatusInTx, STATUS_FOR, type StatusAction } from '../dataset/review';
import { agreementPerLabel, cohensKappa } from './agreement';
import { roleOf } from './curators';

export interface SecondPassInput {
  /** Share of the labelled samples to send, 0 < share <= 1 (1: all). */
  share: number;
  /** Makes the random pick repeatable. */
  seed?: string;
  dryRun?: boolean;
}

/** Sends labelled samples not yet in a second pass to the second-pass queue. */
export function startSecondPass(ctx: ServiceContext, input: SecondPassInput): { added: number; eligible: number; dryRun: boolean } {
  if (!(typeof input.share === 'number' && input.share > 0 && input.share <= 1))
    throw new AppError('Invalid', 'second pass: share must be above 0 and at most 1');
  const rows = listSamplesForSecondPass(ctx.db);
  // A random share that is the same for the same seed: order by a keyed hash and take the first part.
  const seed = input.seed ?? String(nowOf(ctx));
  const key = (id: string) => createHash('sha256').update(`${seed}\u0000${id}`).digest('hex');
  const picked = rows
    .map((r) => ({ r, k: key(r.id) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .slice(0, Math.round(rows.length * input.share))
    .map((x) => x.r);
  if (input.dryRun) return { added: picked.length, eligible: rows.length, dryRun: true };
  writeTx(ctx.db, () => {
    for (const r of picked) {
      insertSecondPass(ctx.db, r.id, r.annotated_by, r.annotation_status, nowOf(ctx));
      // The first curator is never served it again: a hold of theirs would only keep the second away.
      deleteReservation(ctx.db, r.id, r.annotated_by);
    }
  });
  return { added: picked.length, eligible: rows.length, dryRun: false };
}

export type Disagreement = AgreementReport['disagreements'][number];

export function agreementReport(ctx: ServiceContext, limit = 200): AgreementReport {
  const pairs = listSecondPassLabelPairs(ctx.db).map((p) => [p.a, p.b] as const);
  const waiting = countSecondPassWaiting(ctx.db);
  const adjudicated = countSecondPassAdjudicated(ctx.db);
  const curators = listSecondPassCurators(ctx.db);
  const disagreements = listOpenDisagreements(ctx.db, limit);
  const reviewers = listReviewerActionCounts(ctx.db);
  return { overall: cohensKappa(pairs), perLabel: agreementPerLabel(pairs), waiting, curators, disagreements, adjudicated, reviewers };
}

/** A lead settles a disagreement: the sample takes the chosen label (an undoable review action). */
export function adjudicate(ctx: ServiceContext, input: { sampleId: string; action: StatusAction; notes?: string }): void {
  if (roleOf(ctx) !== 'lead') throw new AppError('Invalid', `only a lead adjudicates; ${actorOf(ctx)} is a curator`);
  if (!STATUS_FOR[input.action]) throw new AppError('Invalid', 'adjudicate: action must be approve, reject or needs_review');
  writeTx(ctx.db, () => {
    const p = findSecondPass(ctx.db, input.sampleId);
    if (!p) throw new AppError('NotFound', `sample ${input.sampleId} is not in the second pass`);
    if (p.second_label == null) throw new AppError('Conflict', `sample ${input.sampleId} has no second label yet`);
    applyStatusInTx(ctx, input.sampleId, { action: input.action, notes: input.notes });
    markSecondPassAdjudicated(ctx.db, input.sampleId, STATUS_FOR[input.action], actorOf(ctx), nowOf(ctx));
  });
}
