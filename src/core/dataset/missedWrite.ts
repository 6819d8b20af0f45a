// A curator's correction of a NO_WRITE decision: "this should have been written, as this fact to this
// file". It turns the decision's NO_WRITE sample into a positive for the write (issue 12, item 3).
import { ulid } from 'ulid';
import { MEMORY_FILES, decisionForFile, type GateDecision, type MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { findDecisionForCorrection, insertMissedWriteCorrection, rejectSamplesSupersededBy } from '../db/repositories/gateCorrections';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { collectSamples } from './collect';
import type { DatasetCollectionConfig, DatasetCollectionConfigInput } from './config';

export interface MissedWriteInput {
  decisionId: string;
  fact: string;
  file: MemoryFileName;
  reason: string;
  config?: DatasetCollectionConfigInput | DatasetCollectionConfig;
}

export interface MissedWriteResult {
  correctionId: string;
  decision: GateDecision;
  /** Samples the correction produced (a positive, and the negative for preference data). */
  addedSamples: number;
  /** Earlier samples of this decision that taught NO_WRITE (or an older correction), now rejected. */
  supersededSamples: number;
}

/** Records a missed write, retires the samples that taught the opposite, and collects the new ones. */
export async function markMissedWrite(ctx: ServiceContext, input: MissedWriteInput): Promise<MissedWriteResult> {
  const fact = typeof input.fact === 'string' ? input.fact.trim() : '';
  const reason = typeof input.reason === 'string' ? input.reason.trim() : '';
  if (!fact) throw new AppError('Invalid', 'missed write: fact must not be empty (the fact the gate should have written)');
  if (!reason) throw new AppError('Invalid', 'missed write: reason must not be empty');
  if (!MEMORY_FILES.includes(input.file)) throw new AppError('Invalid', `missed write: file must be one of ${MEMORY_FILES.join(', ')}`);
  const d = findDecisionForCorrection(ctx.db, input.decisionId);
  if (!d) throw new AppError('NotFound', `memory_gate decision ${input.decisionId} not found`);
  if (d.decision !== 'NO_WRITE') {
    throw new AppError(
      'Invalid',
      `missed write: decision ${d.id} is ${d.decision}; only a NO_WRITE decision can miss a write (correct writes from the write's audit)`,
    );
  }
  if (d.excluded) throw new AppError('Invalid', `missed write: session ${d.session_id} is excluded from datasets`);
  const now = nowOf(ctx);
  const correctionId = ulid(now);
  const decision = decisionForFile(input.file);
  const superseded = writeTx(ctx.db, () => {
    insertMissedWriteCorrection(ctx.db, {
      id: correctionId,
      decisionId: d.id,
      decision,
      fact,
      file: input.file,
      reason,
      by: actorOf(ctx),
      at: now,
    });
    // the NO_WRITE sample, and samples of an earlier correction of this decision, now teach the wrong thing
    return rejectSamplesSupersededBy(ctx.db, d.id, correctionId, actorOf(ctx), now);
  });
  const collected = await collectSamples(ctx, {
    sessionId: d.session_id,
    since: d.created_at,
    until: d.created_at + 1,
    autoApprove: true,
    config: input.config,
  });
  return { correctionId, decision, addedSamples: collected.addedTotal, supersededSamples: superseded };
}
