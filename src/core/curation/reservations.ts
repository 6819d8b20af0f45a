// Reservations (LangSmith's annotation-queue pattern): a sample shown to one curator is held for them
// for a few minutes, so two curators working the same queue are served different samples. A hold ends
// when its curator decides, skips, or stops renewing it (timeout).
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { claimReservation, deleteExpiredReservations, deleteReservation } from '../db/repositories/reviewPasses';
import { actorOf, nowOf, type ServiceContext } from '../context';
import type { ReserveResult } from '../../shared/contract/curation';

export const RESERVATION_MS = 5 * 60_000;

function checkIds(ids: unknown): string[] {
  if (!Array.isArray(ids) || ids.some((x) => typeof x !== 'string' || !x))
    throw new AppError('Invalid', 'reservations: ids must be sample ids');
  if (ids.length > 50) throw new AppError('Invalid', 'reservations: at most 50 samples at a time');
  return ids as string[];
}

/** Holds (or renews) these samples for the acting curator unless someone else holds them. */
export function reserveSamples(ctx: ServiceContext, ids: string[], ttlMs = RESERVATION_MS): ReserveResult {
  const list = checkIds(ids);
  const me = actorOf(ctx);
  const now = nowOf(ctx);
  return writeTx(ctx.db, () => {
    deleteExpiredReservations(ctx.db, now);
    const out: ReserveResult = { held: [], taken: [] };
    for (const id of list) {
      const h = claimReservation(ctx.db, id, me, now + ttlMs);
      if (!h) continue; // no such sample
      if (h.curator === me) out.held.push(id);
      else out.taken.push({ id, curator: h.curator, until: h.expires_at });
    }
    return out;
  });
}

/** Gives the acting curator's holds on these samples back to the queue (skip, or leaving Review). */
export function releaseSamples(ctx: ServiceContext, ids: string[]): number {
  const list = checkIds(ids);
  const me = actorOf(ctx);
  return writeTx(ctx.db, () => list.reduce((n, id) => n + deleteReservation(ctx.db, id, me), 0));
}
