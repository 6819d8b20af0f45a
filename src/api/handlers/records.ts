// Sessions, turns, context, search and memory_gate: the services return the contract's types, so each handler
// only names the call.
import { gateStats, listDecisions, showDecision } from '../../core/gate';
import { search } from '../../core/search';
import { contextOfTurn, getSession, getTurn, listSessions, listTurns } from '../../core/sessions';
import type { Handlers } from '../registry';

export const recordHandlers = {
  'sessions.list': (input, env) => listSessions(env.session.serviceContext(), { ...input, query: input.text }),
  'sessions.get': (input, env) => getSession(env.session.serviceContext(), input.id),
  'turns.list': (input, env) => listTurns(env.session.serviceContext(), input),
  'turns.get': (input, env) => getTurn(env.session.serviceContext(), input.id),
  'context.get': (input, env) => contextOfTurn(env.session.serviceContext(), input.turnId),
  'search.query': (input, env) => search(env.session.serviceContext(), input),
  'gate.list': (input, env) => listDecisions(env.session.serviceContext(), { ...input, query: input.text }),
  'gate.show': (input, env) => showDecision(env.session.serviceContext(), input.id),
  'gate.stats': (input, env) => gateStats(env.session.serviceContext(), input),
} satisfies Partial<Handlers>;
