// Full-text search over turns (user and agent text) and decisions (reasons, candidate facts).
// Three or more characters: FTS5 trigram index, newest first. Shorter: a LIKE-style scan over the
// newest rows only, so a one-character query on a million turns still answers at once.
import type { SearchHit, SearchHitField, SearchHitKind, SearchPage } from '../../shared/contract/records';
import { AppError } from '../../shared/errors';
import type { ServiceContext } from '../context';
import { clampLimit } from '../db/paging';
import { searchDecisions, searchTurns } from '../db/repositories/search';
import { parseTextQuery, snippet } from './fts';

export interface SearchInput {
  text: string;
  /** Turns, decisions or (default, empty) both. */
  kinds?: SearchHitKind[];
  sessionId?: string;
  /** Most rows of each kind looked at and most hits returned (default 20). */
  limit?: number;
}

/** How many of the newest rows a short query looks at. */
export const SCAN_BOUND = 20_000;

type Base = Omit<SearchHit, 'field' | 'text' | 'matches'>;

/** One hit per field that matched: a window of its text (cut ends marked with …) and the match offsets in it. */
function fieldHits(base: Base, fields: Array<[SearchHitField, string | null]>, terms: string[]): SearchHit[] {
  const hits: SearchHit[] = [];
  for (const [field, full] of fields) {
    if (full === null) continue;
    const s = snippet(full, terms);
    if (!s.matches.length) continue;
    const shift = s.truncatedStart ? 1 : 0;
    const text = `${s.truncatedStart ? '…' : ''}${s.text}${s.truncatedEnd ? '…' : ''}`;
    hits.push({ ...base, field, text, matches: s.matches.map((m) => [m.start + shift, m.end + shift] as [number, number]) });
  }
  return hits;
}

export function search(ctx: ServiceContext, input: SearchInput): SearchPage {
  if (!input || typeof input.text !== 'string' || !input.text.trim())
    throw new AppError('Invalid', 'text: expected some text to search for');
  if (input.text.length > 500) throw new AppError('Invalid', 'text: at most 500 characters');
  const kinds = input.kinds?.length ? input.kinds : (['turn', 'decision'] as const);
  for (const k of kinds)
    if (k !== 'turn' && k !== 'decision') throw new AppError('Invalid', `kinds: expected turn or decision, got ${String(k)}`);
  const limit = clampLimit(input.limit, 20, 500);
  const q = parseTextQuery(input.text);
  const query = { match: q.match, shortTerms: q.shortTerms, sessionId: input.sessionId, limit, scan: SCAN_BOUND };
  const turns = kinds.includes('turn') ? searchTurns(ctx.db, query) : [];
  const decisions = kinds.includes('decision') ? searchDecisions(ctx.db, query) : [];
  const rows = [
    ...turns.map((t) => ({
      base: { kind: 'turn', id: t.id, turnId: t.id, sessionId: t.session_id, createdAt: t.created_at } as Base,
      fields: [
        ['user_message', t.user_message_content],
        ['agent_message', t.agent_message_content],
      ] as Array<[SearchHitField, string | null]>,
    })),
    ...decisions.map((d) => ({
      base: {
        kind: 'decision',
        id: d.id,
        turnId: d.turn_id,
        sessionId: d.session_id,
        createdAt: d.created_at,
        decision: d.decision,
      } as Base,
      fields: [
        ['reason', d.reason],
        ['candidate_fact', d.candidate_fact],
      ] as Array<[SearchHitField, string | null]>,
    })),
  ];
  rows.sort((a, b) => b.base.createdAt - a.base.createdAt || (a.base.kind < b.base.kind ? -1 : 1));
  const items = rows.slice(0, limit).flatMap((r) => fieldHits(r.base, r.fields, q.terms));
  return { items, nextCursor: null, mode: q.match ? 'fts' : 'scan', ...(q.match ? {} : { scanned: SCAN_BOUND }) };
}
