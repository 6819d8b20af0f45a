// The acting curator's last review decisions, newest first, a bulk action counted as one, so the
// review view can jump back to any of them.
import type { HistoryEntry } from '../../shared/contract/curation';
import { actorOf, type ServiceContext } from '../context';
import { listReviewHistory } from '../db/repositories/reviewPasses';

export function reviewHistory(ctx: ServiceContext, limit = 20): HistoryEntry[] {
  return listReviewHistory(ctx.db, actorOf(ctx), limit);
}
