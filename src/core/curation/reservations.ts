// Reservations (LangSmith's annotation-queue pattern): a sample shown to one curator is held for them
// for a few minutes, so two curators working the same queue are served different samples. A hold ends
// when its curator decides, skips, or stops renewing it (timeout).
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { actorOf, nowOf, type ServiceContext } from '../context';
import type { ReserveResultDto } from '../../shared/contract/curation';

export const RESERVATION_MS = 5 * 60_000;

export type ReserveResult = ReserveResultDto;

function checkIds(ids: unknown): string[] {
  if (!Array.isArray(ids) || ids.some((x) => typeof x !== 'string' || !x)) throw new AppError('Invalid', 'reservations: ids must be sample ids');
  if (ids.length > 50) throw new AppError('Invalid', 'reservations: at most 50 samples at a time');
  return ids as string[];
}

/** Holds (or renews) these samples for the acting curator unless someone else holds them. */
export function reserveSamples(ctx: ServiceContext, ids: string[], ttlMs = RESERVATION_MS): ReserveResult {
  const list = checkIds(ids);
  const me = actorOf(ctx);
  const now = nowOf(ctx);
  return writeTx(ctx.db, () => {
    ctx.db.prepare('DELETE FROM review_reservations WHERE expires_at <= ?').run(now);
    const claim = ctx.db.prepare(
      `INSERT INTO review_reservations (sample_id, curator, expires_at)
       SELECT id, @me, @until FROM dataset_samples WHERE id = @id
       ON CONFLICT (sample_id) DO UPDATE SET curator = excluded.curator, expires_at = excluded.expires_at
       WHERE review_reservations.curator = excluded.curator`,
    );
    const holder = ctx.db.prepare('SELECT curator, expires_at FROM review_reservations WHERE sample_id = ?');
    const out: ReserveResult = { held: [], taken: [] };
    for (const id of list) {
      claim.run({ id, me, until: now + ttlMs });
      const h = holder.get(id) as { curator: string; expires_at: number } | undefined;
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
  const del = ctx.db.prepare('DELETE FROM review_reservations WHERE sample_id = ? AND curator = ?');
  return writeTx(ctx.db, () => list.reduce((n, id) => n + del.run(id, me).changes, 0));
}

/** SQL condition (alias s) leaving out samples another curator holds right now. */
export const NOT_HELD_BY_OTHERS = `NOT EXISTS (SELECT 1 FROM review_reservations rr
  WHERE rr.sample_id = s.id AND rr.curator <> @me AND rr.expires_at > @now)`;
