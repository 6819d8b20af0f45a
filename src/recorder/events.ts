// What the plugin hands the queued recorder, and how each event becomes rows. The fields the plugin
// does not know (model latency, tokens, raw response, sometimes the target file) are optional.
import { z } from 'zod';
import { GATE_DECISIONS, MEMORY_FILES, fileForDecision } from '../shared/domain';
import { AppError } from '../shared/errors';
import type { RecorderCore } from '../core/recorder/recorder';
import { auditExists, decisionExists, findDecisionForWrite, setDecisionOutcome, turnExists } from '../core/db/repositories/recorder';

const ms = z.number().int().nonnegative();
const nonEmpty = z.string().min(1);
const jsonObject = z.record(z.string(), z.unknown());

export const turnEvent = z.object({
  kind: z.literal('turn'),
  id: nonEmpty,
  sessionId: nonEmpty,
  channelId: z.string().default('unknown'),
  conversationTarget: z.string().optional(),
  accountId: z.string().optional(),
  userMessage: z.object({ id: z.string().optional(), content: z.string(), from: z.string().optional(), metadata: jsonObject.optional() }),
  agentReply: z.object({ id: z.string().optional(), content: z.string(), metadata: jsonObject.optional() }),
  context: z.array(z.object({ role: z.enum(['user', 'agent']), message: z.string(), timestamp: ms })).default([]),
  createdAt: ms,
});

export const decisionEvent = z.object({
  kind: z.literal('decision'),
  id: nonEmpty,
  turnId: nonEmpty,
  sessionId: nonEmpty,
  decision: z.enum(GATE_DECISIONS),
  reason: z.string(),
  candidateFact: z.string().optional(),
  model: z.string().optional(),
  latencyMs: ms.optional(),
  promptTokens: ms.optional(),
  completionTokens: ms.optional(),
  rawResponse: z.string().optional(),
  createdAt: ms,
});

export const writeEvent = z.object({
  kind: z.literal('write'),
  id: nonEmpty,
  decisionId: nonEmpty,
  turnId: z.string().optional(),
  sessionId: z.string().optional(),
  decision: z.enum(GATE_DECISIONS).optional(),
  /** Omitted by a skipped write (no candidate fact, not an update decision): derived from the decision. */
  targetFile: z.enum(MEMORY_FILES).optional(),
  status: z.enum(['written', 'refused', 'failed', 'skipped']),
  reason: z.string().optional(),
  candidateFact: z.string().optional(),
  before: z.string().nullable().optional(),
  after: z.string().nullable().optional(),
  model: z.string().optional(),
  latencyMs: ms.optional(),
  agentSteps: ms.optional(),
  createdAt: ms,
});

export const recorderEvent = z.discriminatedUnion('kind', [turnEvent, decisionEvent, writeEvent]);
export type RecorderEvent = z.input<typeof recorderEvent>;
type Parsed = z.output<typeof recorderEvent>;

const isConflict = (e: unknown) => e instanceof AppError && e.kind === 'Conflict';

/**
 * Writes one event through the recorder core. Ids come from the plugin side, so replaying an event
 * (a spool after a crash) finds its row and does nothing. Returns false when it was already there.
 */
export function applyEvent(core: RecorderCore, raw: unknown): boolean {
  const e = recorderEvent.parse(raw) as Parsed;
  if (e.kind === 'turn') {
    if (turnExists(core.db, e.id)) return false;
    core.upsertSession({
      id: e.sessionId,
      channelId: e.channelId,
      conversationTarget: e.conversationTarget,
      accountId: e.accountId,
      createdAt: e.createdAt,
      lastActivityAt: e.createdAt,
    });
    try {
      core.insertTurn({ id: e.id, sessionId: e.sessionId, userMessage: e.userMessage, agentReply: e.agentReply, createdAt: e.createdAt });
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
    if (e.context.length) core.insertContextBatch(e.id, e.context);
    return true;
  }
  if (e.kind === 'decision') {
    if (decisionExists(core.db, e.id)) return false;
    core.insertDecision({
      id: e.id,
      turnId: e.turnId,
      sessionId: e.sessionId,
      decision: e.decision,
      reason: e.reason,
      candidateFact: e.candidateFact,
      llmCall: {
        model: e.model || 'unknown',
        latencyMs: e.latencyMs,
        promptTokens: e.promptTokens,
        completionTokens: e.completionTokens,
        rawResponse: e.rawResponse,
      },
      createdAt: e.createdAt,
    });
    return true;
  }
  return applyWrite(core, e);
}

function applyWrite(core: RecorderCore, e: Extract<Parsed, { kind: 'write' }>): boolean {
  const db = core.db;
  if (auditExists(db, e.id)) return false;
  const decision = findDecisionForWrite(db, e.decisionId);
  if (!decision) throw new AppError('Invalid', `recordWrite: decisionId: decision ${e.decisionId} was not recorded`);
  const targetFile = e.targetFile ?? fileForDecision(e.decision ?? decision.decision);
  if (!targetFile) {
    // A skipped NO_WRITE has no file: what became of it is the decision's outcome, not a write.
    setDecisionOutcome(db, e.decisionId, e.status);
    return true;
  }
  core.recordWrite({
    id: e.id,
    decisionId: e.decisionId,
    turnId: e.turnId ?? decision.turnId,
    sessionId: e.sessionId ?? decision.sessionId,
    targetFile,
    candidateFact: e.candidateFact,
    before: e.before,
    after: e.after,
    status: e.status,
    reason: e.reason,
    llmCall:
      e.model || e.latencyMs !== undefined || e.agentSteps !== undefined
        ? { model: e.model, latencyMs: e.latencyMs, agentSteps: e.agentSteps }
        : undefined,
    source: 'plugin',
    createdAt: e.createdAt,
  });
  return true;
}
