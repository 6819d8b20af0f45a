// Sessions, turns, context, search and memory_gate: the recorded-workspace services mapped to the contract's DTOs.
import type { AuditRow, ContextItemDto, GateDecisionRow, SearchHit, TurnDto } from '../../shared/contract';
import type { ConversationContextItem, ConversationTurn } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { gateStats, listDecisions, showDecision, type DecisionListItem, type WriteOutcome } from '../../core/gate';
import { contextOf } from '../../core/gate/list';
import { encodeCursor } from '../../core/db/paging';
import { search } from '../../core/search';
import { getTurn, listSessions, listTurns, type TimelineTurn, type TurnDecision } from '../../core/sessions';
import type { Handlers } from '../registry';

export const turnDto = (t: ConversationTurn): TurnDto => ({
  id: t.id,
  sessionId: t.sessionId,
  turnNumber: t.turnNumber,
  userMessage: t.userMessage.content,
  userFrom: t.userMessage.from ?? null,
  agentReply: t.agentReply.content,
  createdAt: t.createdAt,
  userMetadata: t.userMessage.metadata ?? null,
  agentMetadata: t.agentReply.metadata ?? null,
});

export const contextDto = (c: ConversationContextItem): ContextItemDto => ({ ...c });

export const decisionDto = (d: DecisionListItem): GateDecisionRow => ({
  id: d.id,
  turnId: d.turnId,
  sessionId: d.sessionId,
  decision: d.decision,
  reason: d.reason,
  candidateFact: d.candidateFact,
  model: d.llmModel,
  latencyMs: d.latencyMs,
  promptTokens: d.promptTokens,
  completionTokens: d.completionTokens,
  source: d.source,
  createdAt: d.createdAt,
  writeStatus: d.writeStatus,
  userMessage: d.userMessage,
  agentReply: d.agentReply,
});

const timelineDecisionDto = (t: ConversationTurn, d: TurnDecision): GateDecisionRow => ({
  id: d.id,
  turnId: t.id,
  sessionId: t.sessionId,
  decision: d.decision,
  reason: d.reason,
  candidateFact: d.candidateFact,
  model: d.llmModel,
  latencyMs: d.latencyMs,
  createdAt: d.createdAt,
});

export const writeOutcomeDto = (w: WriteOutcome, turn?: { id: string; sessionId: string }): AuditRow => ({
  id: w.id,
  decisionId: w.decisionId,
  turnId: turn?.id ?? null,
  sessionId: turn?.sessionId ?? null,
  targetFile: w.targetFile,
  candidateFact: w.candidateFact,
  status: w.status,
  source: w.source,
  reason: w.reason,
  lineChanges: w.linesAdded === null && w.linesRemoved === null && w.linesModified === null
    ? null
    : { added: w.linesAdded ?? 0, removed: w.linesRemoved ?? 0, modified: w.linesModified ?? 0 },
  createdAt: w.createdAt,
});

const timelineDto = (t: TimelineTurn) => ({
  ...turnDto(t),
  decisions: t.decisions.map((d) => timelineDecisionDto(t, d)),
  writes: t.writes.map((w) => writeOutcomeDto(w, t)),
});

const SEARCH_FIELD = { user: 'user_message', agent: 'agent_message', reason: 'reason', fact: 'candidate_fact' } as const;

export const recordHandlers = {
  'sessions.list': (input, env) => {
    const page = listSessions(env.session.serviceContext(), { limit: input.limit, cursor: input.cursor, channelId: input.channelId, query: input.text });
    return {
      nextCursor: page.nextCursor,
      items: page.items.map((s) => ({
        id: s.id, channelId: s.channelId, conversationTarget: s.conversationTarget, accountId: s.accountId,
        createdAt: s.createdAt, lastActivityAt: s.lastActivityAt, turnCount: s.turnCount, excluded: s.excluded,
      })),
    };
  },
  'sessions.get': (input, env) => {
    const ctx = env.session.serviceContext();
    // The session list filters by substring of the key; the exact one is among its matches.
    let cursor: string | undefined;
    for (;;) {
      const page = listSessions(ctx, { query: input.id, limit: 200, cursor });
      const s = page.items.find((x) => x.id === input.id);
      if (s) {
        const writeCount = (ctx.db.prepare('SELECT count(*) AS n FROM write_guardian_audit WHERE session_id = ?').get(s.id) as { n: number }).n;
        return {
          id: s.id, channelId: s.channelId, conversationTarget: s.conversationTarget, accountId: s.accountId,
          createdAt: s.createdAt, lastActivityAt: s.lastActivityAt, turnCount: s.turnCount, excluded: s.excluded,
          metadata: s.metadata, decisionCount: s.decisionCount, writeCount,
        };
      }
      if (!page.nextCursor) throw new AppError('NotFound', `session ${input.id} not found`);
      cursor = page.nextCursor;
    }
  },
  'turns.list': (input, env) => {
    const ctx = env.session.serviceContext();
    // A link to one turn (a search hit) opens the timeline at that turn: start just before its number.
    let cursor = input.cursor;
    if (!cursor && input.fromTurn) {
      const turn = getTurn(ctx, input.fromTurn).turn;
      if (turn.sessionId !== input.sessionId) throw new AppError('Invalid', `turn ${input.fromTurn} is not in session ${input.sessionId}`);
      cursor = encodeCursor([turn.turnNumber - 1]);
    }
    const page = listTurns(ctx, { sessionId: input.sessionId, limit: input.limit, cursor });
    return { items: page.items.map(timelineDto), nextCursor: page.nextCursor };
  },
  'turns.get': (input, env) => {
    const detail = getTurn(env.session.serviceContext(), input.id);
    const t = timelineDto(detail.turn);
    return { turn: turnDto(detail.turn), context: detail.context.map(contextDto), decisions: t.decisions, writes: t.writes };
  },
  'context.get': (input, env) => {
    const ctx = env.session.serviceContext();
    if (!ctx.db.prepare('SELECT 1 FROM conversation_turns WHERE id = ?').get(input.turnId)) throw new AppError('NotFound', `turn ${input.turnId} not found`);
    return contextOf(ctx, input.turnId).map(contextDto);
  },
  'search.query': (input, env) => {
    const kinds = input.kinds ?? [];
    const scope = kinds.length === 1 ? (kinds[0] === 'turn' ? 'turns' : 'decisions') : 'all';
    const result = search(env.session.serviceContext(), { query: input.text, limit: input.limit, scope, sessionId: input.sessionId });
    const items: SearchHit[] = result.hits.flatMap((h) =>
      h.snippets.map((s) => ({
        kind: h.kind,
        id: h.id,
        sessionId: h.sessionId,
        turnId: h.turnId,
        field: SEARCH_FIELD[s.field],
        text: `${s.truncatedStart ? '…' : ''}${s.text}${s.truncatedEnd ? '…' : ''}`,
        matches: s.matches.map((m) => [m.start + (s.truncatedStart ? 1 : 0), m.end + (s.truncatedStart ? 1 : 0)] as [number, number]),
        createdAt: h.createdAt,
      })),
    );
    // The service returns its best hits in one page (FTS ranks newest first); there is no further page.
    return { items, nextCursor: null };
  },

  'gate.list': (input, env) => {
    const page = listDecisions(env.session.serviceContext(), {
      sessionId: input.sessionId, decision: input.decision, query: input.text, since: input.since, until: input.until,
      limit: input.limit, cursor: input.cursor,
    });
    return { items: page.items.map(decisionDto), nextCursor: page.nextCursor };
  },
  'gate.show': (input, env) => {
    const d = showDecision(env.session.serviceContext(), input.id);
    const turn = { id: d.turn.id, sessionId: d.turn.sessionId };
    return {
      decision: { ...decisionDto(d.decision), rawResponse: d.decision.rawResponse },
      turn: turnDto(d.turn),
      context: d.context.map(contextDto),
      writes: d.writes.map((w) => writeOutcomeDto(w, turn)),
    };
  },
  'gate.stats': (input, env) => {
    const groupBy = ({ daily: 'day', weekly: 'week', session: 'session' } as const)[input.groupBy];
    const s = gateStats(env.session.serviceContext(), { groupBy, since: input.since, until: input.until, limit: input.limit });
    const byDecision = Object.fromEntries(s.byDecision.map((d) => [d.decision, d.count])) as Record<(typeof s.byDecision)[number]['decision'], number>;
    return {
      groupBy: input.groupBy,
      buckets: s.rows.map((r) => ({ key: r.key, total: r.total, byDecision: r.counts, avgLatencyMs: r.avgLatencyMs, sessionCount: r.sessionCount })),
      totals: { total: s.total, byDecision, avgLatencyMs: s.avgLatencyMs },
    };
  },
} satisfies Partial<Handlers>;
