// memory_gate decisions, newest first, paged by keyset so any page of a million rows costs the same.
import type { GateDecisionPage } from '../../shared/contract/records';
import { GATE_DECISIONS, type GateDecision } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { nowOf, type ServiceContext } from '../context';
import { clampLimit, decodeCursor, pageOf } from '../db/paging';
import { decisionFromRow, decisionTimeAtRank, listDecisionsPage, listDecisionsSql, type DecisionQuery } from '../db/repositories/decisions';
import { listContextOfTurn } from '../db/repositories/turns';
import { parseTextQuery } from '../search/fts';
import { parseTimeRange } from '../text/time';

export interface DecisionFilters {
  sessionId?: string;
  decision?: GateDecision | GateDecision[];
  turnId?: string;
  /** ms since epoch, ISO 8601, or a duration back from now ("7d"). Inclusive. */
  since?: number | string;
  /** Exclusive upper bound, same forms as since. */
  until?: number | string;
  /** Free text over reasons, candidate facts and the turn's messages. */
  query?: string;
}

export interface ListDecisionsInput extends DecisionFilters {
  limit?: number;
  cursor?: string;
  withContext?: boolean;
}

/** How many of the newest decisions a free-text filter without any 3+ character term looks at. */
export const SHORT_TEXT_SCAN_BOUND = 20_000;

function checkDecisions(value: GateDecision | GateDecision[] | undefined): GateDecision[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : [value];
  for (const d of list) {
    if (!(GATE_DECISIONS as readonly string[]).includes(d))
      throw new AppError('Invalid', `decision: "${d}" is not one of ${GATE_DECISIONS.join(', ')}`);
  }
  return list;
}

/** Filters checked and parsed into a repository query; `scanned` is set when a short text filter was bounded. */
export function decisionQuery(
  ctx: ServiceContext,
  f: DecisionFilters,
  options: { boundShortText?: boolean } = {},
): DecisionQuery & { scanned?: number } {
  if (f.sessionId !== undefined && (typeof f.sessionId !== 'string' || !f.sessionId))
    throw new AppError('Invalid', 'sessionId: expected a session key');
  const q: DecisionQuery & { scanned?: number } = {
    sessionId: f.sessionId,
    turnId: f.turnId,
    decisions: checkDecisions(f.decision),
    ...parseTimeRange(f, nowOf(ctx)),
  };
  if (f.query !== undefined && f.query.trim()) {
    const text = parseTextQuery(f.query);
    q.match = text.match;
    q.shortTerms = text.shortTerms;
    if (!text.match && options.boundShortText) {
      // No trigram index can serve 1-2 characters: bound the scan to the newest decisions, as search does.
      q.scanFloor = decisionTimeAtRank(ctx.db, SHORT_TEXT_SCAN_BOUND - 1);
      q.scanned = SHORT_TEXT_SCAN_BOUND;
    }
  }
  return q;
}

function pageQuery(ctx: ServiceContext, input: ListDecisionsInput) {
  const limit = clampLimit(input.limit, 50);
  // Pages are interactive: a 1-2 character filter must not scan a million rows. Stats and exports stay complete.
  const { scanned, ...q } = decisionQuery(ctx, input, { boundShortText: true });
  const after = decodeCursor(input.cursor, ['number', 'number']) as [number, number] | undefined;
  return { query: { ...q, after, limitPlusOne: limit + 1 }, limit, scanned };
}

/** The SQL of one page, exposed so tests can check its query plan. */
export function listDecisionsPlanSql(ctx: ServiceContext, input: ListDecisionsInput): { sql: string; params: Record<string, unknown> } {
  return listDecisionsSql(pageQuery(ctx, input).query);
}

export function listDecisions(ctx: ServiceContext, input: ListDecisionsInput = {}): GateDecisionPage {
  const { query, limit, scanned } = pageQuery(ctx, input);
  const page = pageOf(listDecisionsPage(ctx.db, query), limit, (r) => [r.created_at, r.seq], decisionFromRow);
  if (input.withContext) for (const item of page.items) item.context = listContextOfTurn(ctx.db, item.turnId);
  return { ...page, ...(scanned ? { scanned } : {}) };
}
