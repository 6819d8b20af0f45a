// The plugin's per-session memory_gate queue, rebuilt from its log lines. Each agent reply snapshot
// queues one gate run (runExclusive(sessionKey)), runs are serialised per session, and a run logs its
// decision only when the LLM answers (0.5-3 s later). So decisions are matched to the queued runs
// first in, first out per session, never to the latest snapshot. A run judges the latest reply in
// the buffer when it starts: its own snapshot when the session was idle, otherwise the latest reply
// logged when the run before it ended (its last line). Write outcomes follow their decision before
// the next run of the same session starts, so they match the oldest decision awaiting one.
import type { GateDecision } from '../../shared/domain';

/** A queued gate run: the turn its reply snapshot belongs to, and the turn it judges once started. */
export interface GateSlot {
  turnId: string;
  at: number;
  judges?: string;
}

/** An UPDATE_* decision whose write outcome has not been logged yet. */
export interface AwaitingOutcome {
  id: string;
  decision: GateDecision;
  turnId: string;
  at: number;
}

export interface GateQueueState {
  queue: GateSlot[];
  awaiting: AwaitingOutcome[];
}

// A session whose gate is disabled (or whose decisions were lost) must not grow without bound.
const MAX_QUEUED = 64;

export function enqueueRun(s: GateQueueState, slot: GateSlot): GateSlot | undefined {
  // An idle session starts the run at once, on the reply that queued it.
  if (!s.queue.length) slot.judges = slot.turnId;
  s.queue.push(slot);
  return s.queue.length > MAX_QUEUED ? s.queue.shift() : undefined;
}

/** The run whose decision (or failure) was just logged: the oldest one queued. */
export function currentRun(s: GateQueueState): GateSlot | undefined {
  return s.queue[0];
}

/**
 * The current run ended (its last line was logged): the next queued run starts now and reads the
 * latest reply in the buffer, which may be a later one than the reply that queued it.
 */
export function endRun(s: GateQueueState, latestReplyTurn: string | undefined): void {
  s.queue.shift();
  const next = s.queue[0];
  if (next) next.judges = latestReplyTurn ?? next.turnId;
}

/**
 * The decision a write outcome belongs to: the oldest awaiting one with the same decision. Older
 * ones with another decision lost their outcome (a crash between the two lines) and are dropped.
 */
export function takeAwaiting(s: GateQueueState, decision: GateDecision): AwaitingOutcome | undefined {
  while (s.awaiting.length) {
    const head = s.awaiting.shift()!;
    if (head.decision === decision) return head;
  }
  return undefined;
}

/** A run that threw after its decision was logged: the failure is that decision's outcome. */
export function takeAnyAwaiting(s: GateQueueState): AwaitingOutcome | undefined {
  return s.awaiting.shift();
}

/** The turn a run judged: recorded when it started, else (state from an older version) its own. */
export const judgedTurn = (slot: GateSlot): string => slot.judges ?? slot.turnId;

export function awaitOutcome(s: GateQueueState, a: AwaitingOutcome): void {
  s.awaiting.push(a);
  if (s.awaiting.length > MAX_QUEUED) s.awaiting.shift();
}

/** The plugin's analyzer turns a failed LLM request into NO_WRITE with this reason; it judged nothing. */
export const isFailedGateReason = (decision: string, reason: string): boolean =>
  decision === 'NO_WRITE' && /^LLM request failed:/.test(reason);
