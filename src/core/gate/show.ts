import type { GateDecisionDetail } from '../../shared/contract/records';
import { AppError } from '../../shared/errors';
import type { ServiceContext } from '../context';
import { listWritesOfDecision } from '../db/repositories/audits';
import { decisionExists, findDecisionById, findDecisionIdsByPrefix } from '../db/repositories/decisions';
import { findTurnById, listContextOfTurn } from '../db/repositories/turns';

/** Resolves a full decision id, or a unique prefix of at least 6 characters (what a person copies from a table). */
export function resolveDecisionId(ctx: ServiceContext, idOrPrefix: string): string {
  if (typeof idOrPrefix !== 'string' || !idOrPrefix.trim()) throw new AppError('Invalid', 'id: expected a decision id');
  const id = idOrPrefix.trim().toUpperCase();
  if (decisionExists(ctx.db, id)) return id;
  if (id.length >= 6 && id.length < 26) {
    const hits = findDecisionIdsByPrefix(ctx.db, id, 2);
    if (hits.length === 1 && hits[0] !== undefined) return hits[0];
    if (hits.length > 1) throw new AppError('Invalid', `id: "${idOrPrefix}" matches several decisions; give more characters`);
  }
  throw new AppError('NotFound', `decision ${idOrPrefix} not found`);
}

/** One decision with its turn, the turn's full context window and every write outcome (with diffs). */
export function showDecision(ctx: ServiceContext, id: string, options: { withContext?: boolean } = {}): GateDecisionDetail {
  const resolved = resolveDecisionId(ctx, id);
  const decision = findDecisionById(ctx.db, resolved);
  const turn = decision && findTurnById(ctx.db, decision.turnId);
  if (!decision || !turn) throw new AppError('NotFound', `decision ${id} not found`);
  return {
    decision,
    turn,
    context: options.withContext === false ? [] : listContextOfTurn(ctx.db, decision.turnId),
    writes: listWritesOfDecision(ctx.db, resolved, true),
  };
}
