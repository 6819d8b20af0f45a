// Second pass: labelled samples (all, or a random share) go to a queue that a curator other than the
// first one labels again. The pairs give agreement figures; disagreements wait for a lead's decision.
import { createHash } from 'node:crypto';
import type { AgreementReportDto } from '../../shared/contract/curation';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { applyStatusInTx, STATUS_FOR, type StatusAction } from '../dataset/review';
import { agreementPerLabel, cohensKappa } from './agreement';
import { roleOf } from './curators';

const LABELLED = "('approved', 'rejected', 'needs_review')";

export interface SecondPassInput {
  /** Share of the labelled samples to send, 0 < share <= 1 (1: all). */
  share: number;
  /** Makes the random pick repeatable. */
  seed?: string;
  dryRun?: boolean;
}

/** Sends labelled samples not yet in a second pass to the second-pass queue. */
export function startSecondPass(ctx: ServiceContext, input: SecondPassInput): { added: number; eligible: number; dryRun: boolean } {
  if (!(typeof input.share === 'number' && input.share > 0 && input.share <= 1)) throw new AppError('Invalid', 'second pass: share must be above 0 and at most 1');
  const rows = ctx.db
    .prepare(
      `SELECT s.id, s.annotated_by, s.annotation_status FROM dataset_samples s
       WHERE s.annotation_status IN ${LABELLED} AND s.annotated_by IS NOT NULL
         AND s.session_id NOT IN (SELECT session_id FROM excluded_sessions)
         AND NOT EXISTS (SELECT 1 FROM review_second_pass p WHERE p.sample_id = s.id)`,
    )
    .all() as { id: string; annotated_by: string; annotation_status: string }[];
  // A random share that is the same for the same seed: order by a keyed hash and take the first part.
  const seed = input.seed ?? String(nowOf(ctx));
  const key = (id: string) => createHash('sha256').update(`${seed}\u0000${id}`).digest('hex');
  const picked = rows
    .map((r) => ({ r, k: key(r.id) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .slice(0, Math.round(rows.length * input.share))
    .map((x) => x.r);
  if (input.dryRun) return { added: picked.length, eligible: rows.length, dryRun: true };
  const insert = ctx.db.prepare('INSERT INTO review_second_pass (sample_id, first_curator, first_label, created_at) VALUES (?, ?, ?, ?)');
  writeTx(ctx.db, () => {
    for (const r of picked) insert.run(r.id, r.annotated_by, r.annotation_status, nowOf(ctx));
  });
  return { added: picked.length, eligible: rows.length, dryRun: false };
}

export type Disagreement = AgreementReportDto['disagreements'][number];

export type AgreementReport = AgreementReportDto;

export function agreementReport(ctx: ServiceContext, limit = 200): AgreementReport {
  const pairs = (ctx.db.prepare('SELECT first_label AS a, second_label AS b FROM review_second_pass WHERE second_label IS NOT NULL').all() as { a: string; b: string }[]).map(
    (p) => [p.a, p.b] as const,
  );
  const waiting = (ctx.db.prepare('SELECT count(*) AS n FROM review_second_pass WHERE second_label IS NULL').get() as { n: number }).n;
  const adjudicated = (ctx.db.prepare('SELECT count(*) AS n FROM review_second_pass WHERE adjudicated_label IS NOT NULL').get() as { n: number }).n;
  const curators = ctx.db
    .prepare(
      `SELECT name, sum(first) AS first, sum(second) AS second FROM (
         SELECT first_curator AS name, 1 AS first, 0 AS second FROM review_second_pass
         UNION ALL SELECT second_curator, 0, 1 FROM review_second_pass WHERE second_curator IS NOT NULL)
       GROUP BY name ORDER BY name`,
    )
    .all() as { name: string; first: number; second: number }[];
  const disagreements = ctx.db
    .prepare(
      `SELECT p.sample_id AS sampleId, s.sample_type AS sampleType, p.first_curator AS firstCurator, p.first_label AS firstLabel,
        p.second_curator AS secondCurator, p.second_label AS secondLabel, p.second_at AS secondAt
       FROM review_second_pass p JOIN dataset_samples s ON s.id = p.sample_id
       WHERE p.second_label IS NOT NULL AND p.second_label <> p.first_label AND p.adjudicated_label IS NULL
       ORDER BY p.second_at DESC LIMIT ?`,
    )
    .all(limit) as Disagreement[];
  const reviewers = ctx.db
    .prepare('SELECT actor AS name, count(*) AS actions FROM dataset_annotation_events WHERE undone_at IS NULL GROUP BY actor ORDER BY actions DESC')
    .all() as { name: string; actions: number }[];
  return { overall: cohensKappa(pairs), perLabel: agreementPerLabel(pairs), waiting, curators, disagreements, adjudicated, reviewers };
}

/** A lead settles a disagreement: the sample takes the chosen label (an undoable review action). */
export function adjudicate(ctx: ServiceContext, input: { sampleId: string; action: StatusAction; notes?: string }): void {
  if (roleOf(ctx) !== 'lead') throw new AppError('Invalid', `only a lead adjudicates; ${actorOf(ctx)} is a curator`);
  if (!STATUS_FOR[input.action]) throw new AppError('Invalid', 'adjudicate: action must be approve, reject or needs_review');
  writeTx(ctx.db, () => {
    const p = ctx.db.prepare('SELECT second_label FROM review_second_pass WHERE sample_id = ?').get(input.sampleId) as { second_label: string | null } | undefined;
    if (!p) throw new AppError('NotFound', `sample ${input.sampleId} is not in the second pass`);
    if (p.second_label == null) throw new AppError('Conflict', `sample ${input.sampleId} has no second label yet`);
    applyStatusInTx(ctx, input.sampleId, { action: input.action, notes: input.notes });
    ctx.db
      .prepare('UPDATE review_second_pass SET adjudicated_label = ?, adjudicated_by = ?, adjudicated_at = ? WHERE sample_id = ?')
      .run(STATUS_FOR[input.action], actorOf(ctx), nowOf(ctx), input.sampleId);
  });
}
