import { z } from 'zod';
import { AUDIT_SOURCES, AUDIT_STATUSES, GATE_DECISIONS, MEMORY_FILES } from '../../shared/domain';
import { AppError } from '../../shared/errors';

const jsonObject = z.record(z.string(), z.unknown());
const ms = z.number().int().nonnegative();
const nonEmpty = z.string().min(1);

export const sessionInput = z.object({
  id: nonEmpty,
  channelId: nonEmpty,
  conversationTarget: z.string().optional(),
  accountId: z.string().optional(),
  createdAt: ms,
  lastActivityAt: ms,
  metadata: jsonObject.optional(),
});

export const turnInput = z.object({
  id: nonEmpty.optional(),
  sessionId: nonEmpty,
  turnNumber: z.number().int().nonnegative().optional(),
  userMessage: z.object({ id: z.string().optional(), content: z.string(), from: z.string().optional(), metadata: jsonObject.optional() }),
  agentReply: z.object({ id: z.string().optional(), content: z.string(), metadata: jsonObject.optional() }),
  createdAt: ms,
});

export const contextItemInput = z.object({
  role: z.enum(['user', 'agent']),
  message: z.string(),
  timestamp: ms,
});

export const decisionInput = z.object({
  id: nonEmpty.optional(),
  turnId: nonEmpty,
  sessionId: nonEmpty,
  decision: z.enum(GATE_DECISIONS),
  reason: z.string(),
  candidateFact: z.string().optional(),
  llmCall: z.object({
    model: nonEmpty,
    latencyMs: z.number().int().nonnegative().optional(),
    promptTokens: z.number().int().nonnegative().optional(),
    completionTokens: z.number().int().nonnegative().optional(),
    rawResponse: z.string().optional(),
  }),
  source: z.string().optional(),
  createdAt: ms,
});

export const writeInput = z
  .object({
    id: nonEmpty.optional(),
    decisionId: nonEmpty.optional(),
    turnId: nonEmpty.optional(),
    sessionId: nonEmpty.optional(),
    targetFile: z.enum(MEMORY_FILES),
    candidateFact: z.string().optional(),
    /** File content before the write; null when the file did not exist. Omit when unknown. */
    before: z.string().nullable().optional(),
    /** File content after the write; null when the file was deleted. Omit when unknown (refused, failed). */
    after: z.string().nullable().optional(),
    status: z.enum(AUDIT_STATUSES),
    reason: z.string().optional(),
    llmCall: z
      .object({
        model: z.string().optional(),
        latencyMs: z.number().int().nonnegative().optional(),
        agentSteps: z.number().int().nonnegative().optional(),
      })
      .optional(),
    source: z.enum(AUDIT_SOURCES).default('plugin'),
    relatedAuditId: z.string().optional(),
    metadata: jsonObject.optional(),
    createdAt: ms,
  })
  .superRefine((v, ctx) => {
    if (v.source === 'plugin' && !v.decisionId) {
      ctx.addIssue({ code: 'custom', path: ['decisionId'], message: 'required for writes made by the plugin' });
    }
  });

export type SessionInput = z.input<typeof sessionInput>;
export type TurnInput = z.input<typeof turnInput>;
export type ContextItemInput = z.input<typeof contextItemInput>;
export type DecisionInput = z.input<typeof decisionInput>;
export type WriteInput = z.input<typeof writeInput>;

/**
 * Parses input or throws an Invalid error that names the offending field. `wellFormed` (wellFormed.ts)
 * answers the common shape without zod; whatever it declines is parsed, and explained, by the schema.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  call: string,
  wellFormed?: (value: unknown) => z.output<S> | undefined,
): z.output<S> {
  const quick = wellFormed?.(value);
  if (quick !== undefined) return quick;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.length ? issue.path.join('.') : '(input)';
  throw new AppError('Invalid', `${call}: ${field}: ${issue?.message ?? 'invalid'}`, result.error.issues);
}
