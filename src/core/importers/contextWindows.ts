// A turn's context window as importers store it (migration 0178): one JSON array per turn, where a message
// that is the user or agent text of a turn this import wrote in the same session, at most
// MAX_REFERENCE_DISTANCE turn numbers back, is a reference to that turn (how many numbers back) instead of a copy. A transcript's
// window repeats the session's recent messages (each about five times), so references keep the copies out of
// the file, and one row per turn instead of one per message saves most of the per-row work.
import type { ContextWindowItem } from '../db/repositories/contexts';
import type { ContextSnapshot } from './store';

/** The reach of a reference: migration 0178's delete trigger copies text into the windows of this many turns after a deleted one. */
export const MAX_REFERENCE_DISTANCE = 16;
/** Turns remembered for references: more than a window can reach across sessions that interleave. */
const RECENT_TURNS = 64;

interface WrittenTurn {
  sessionId: string;
  turnNumber: number;
  user: string;
  agent: string;
}

export class ContextWindowEncoder {
  private readonly recent = new Map<string, WrittenTurn>();
  /** The newest remembered turn holding each text, per side. */
  private readonly user = new Map<string, string>();
  private readonly agent = new Map<string, string>();

  /** A turn this import writes (in this transaction, before the windows that refer to it): its texts may be referred to. */
  written(id: string, turn: WrittenTurn): void {
    this.recent.set(id, turn);
    this.user.set(turn.user, id);
    this.agent.set(turn.agent, id);
    if (this.recent.size <= RECENT_TURNS) return;
    const [oldId, old] = this.recent.entries().next().value as [string, WrittenTurn];
    this.recent.delete(oldId);
    if (this.user.get(old.user) === oldId) this.user.delete(old.user);
    if (this.agent.get(old.agent) === oldId) this.agent.delete(old.agent);
  }

  /** Forgets turns that turned out not to be stored (their transaction was rolled back): nothing refers to them any more. */
  forget(ids: Iterable<string>): void {
    for (const id of ids) {
      const turn = this.recent.get(id);
      if (!turn) continue;
      this.recent.delete(id);
      if (this.user.get(turn.user) === id) this.user.delete(turn.user);
      if (this.agent.get(turn.agent) === id) this.agent.delete(turn.agent);
    }
  }

  /**
   * The stored items of the window of turn `turnId` (call after `written` for it), and the other turns it
   * refers to. With `selfOnly`, it refers to no turn but its own: for a turn written inside a savepoint that
   * may be rolled back alone, after which a turn remembered here would not exist.
   */
  encode(turnId: string, context: readonly ContextSnapshot[], selfOnly = false): { items: string; refersTo: string[] } {
    const own = this.recent.get(turnId);
    const refersTo = new Set<string>();
    let items = '[';
    for (let i = 0; i < context.length; i++) {
      const c = context[i]!;
      const id = (c.role === 'user' ? this.user : this.agent).get(c.message);
      const source = id === undefined || (selfOnly && id !== turnId) ? undefined : this.recent.get(id);
      const distance = source && own ? own.turnNumber - source.turnNumber : -1;
      if (i > 0) items += ',';
      if (!source || source.sessionId !== own?.sessionId || distance < 0 || distance > MAX_REFERENCE_DISTANCE) {
        items += JSON.stringify([c.role, c.timestamp, c.message] satisfies ContextWindowItem);
        continue;
      }
      if (id !== turnId) refersTo.add(id!);
      items += referenceItem(c.role, c.timestamp, distance);
    }
    return { items: `${items}]`, refersTo: [...refersTo] };
  }
}

/**
 * JSON.stringify([role, timestamp, null, back]) written directly: most items of a window are references, and an
 * array per item, stringified generically, was most of a window's cost. A number prints as JSON prints it.
 */
function referenceItem(role: string, timestamp: number, back: number): string {
  const r = role === 'user' ? '"user"' : role === 'agent' ? '"agent"' : JSON.stringify(role);
  return `[${r},${Number.isFinite(timestamp) ? String(timestamp) : 'null'},null,${back}]`;
}
