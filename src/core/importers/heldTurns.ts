// Turns an import has taken but not yet inserted into conversation_turns (ImportStore.holdTurns): what the
// importer's lookups need of them until they are, and the rows still to be staged.
import type { TurnParams } from '../db/repositories/recorder';

/** What the duplicate checks need of a held turn: its metadata and texts are staged and dropped early. */
interface HeldTurn {
  id: string;
  sessionId: string;
  createdAt: number;
}

export class HeldTurns<Window> {
  /** Ids of every held turn: staged or not. */
  readonly ids = new Set<string>();
  /** Their context windows, in order: inserted after the turns they refer to. */
  readonly windows: Window[] = [];
  /** Rows not staged yet: staged fifty at a time, so their texts and metadata do not live until the commit. */
  unstaged: TurnParams[] = [];
  /** Characters of the held turns' texts and metadata: about what their staged rows take. */
  chars = 0;
  private readonly byUserText = new Map<string, HeldTurn[]>();
  /** The next turn number of each session with held turns. */
  private readonly nextNumbers = new Map<string, number>();
  /** The span of each session's held turns. */
  private readonly spans = new Map<string, { from: number; to: number }>();

  get size(): number {
    return this.ids.size;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** The next turn number of the session, when it has held turns. */
  nextNumber(sessionId: string): number | undefined {
    return this.nextNumbers.get(sessionId);
  }

  add(p: TurnParams, window: Window): void {
    this.ids.add(p.id);
    this.windows.push(window);
    this.unstaged.push(p);
    this.chars += p.userContent.length + p.agentContent.length + (p.userMetadata?.length ?? 0) + (p.agentMetadata?.length ?? 0);
    this.nextNumbers.set(p.sessionId, p.turnNumber + 1);
    const turn = { id: p.id, sessionId: p.sessionId, createdAt: p.createdAt };
    const same = this.byUserText.get(p.userContent);
    if (same) same.push(turn);
    else this.byUserText.set(p.userContent, [turn]);
    const span = this.spans.get(p.sessionId);
    if (!span) this.spans.set(p.sessionId, { from: p.createdAt, to: p.createdAt });
    else {
      span.from = Math.min(span.from, p.createdAt);
      span.to = Math.max(span.to, p.createdAt);
    }
  }

  /** The first held turn of the session with this user text, between from and to. */
  ofUserText(sessionId: string, from: number, to: number, userContent: string): string | undefined {
    for (const t of this.byUserText.get(userContent) ?? []) {
      if (t.sessionId === sessionId && t.createdAt >= from && t.createdAt <= to) return t.id;
    }
    return undefined;
  }

  /** Each session's span: the earliest and the latest of its held turns. */
  sessionSpans(): ReadonlyMap<string, { from: number; to: number }> {
    return this.spans;
  }
}
