// The schema of each dataset sample type's content (issue 12, item 6). Main validates a curator's edit
// with it before saving; the renderer's per-field editor builds its fields from the same shapes.
// Pure zod: no node or electron imports.
import { z } from 'zod';
import { GATE_DECISIONS, MEMORY_FILES, type SampleType } from '../domain';

const text = z.string().max(200_000);
const nonEmpty = text.trim().min(1, 'must not be empty');
const message = z.strictObject({ role: z.enum(['user', 'agent']), message: text });
const conversation = z.array(message).min(1, 'needs at least one message').max(200);
const decision = z.enum(GATE_DECISIONS);
const memoryFile = z.enum(MEMORY_FILES);
const label = z.enum(['correct', 'incorrect', 'corrected']);
/** What write_guardian did (or should have done); "skipped" is the plugin's own no-op outcome. */
export const GUARDIAN_ACTIONS = ['written', 'refused', 'skipped'] as const;
const guardianAction = z.enum(GUARDIAN_ACTIONS);

export const memoryGatePositiveSchema = z
  .strictObject({
    type: z.literal('memory_gate_positive'),
    conversation,
    correctDecision: decision,
    correctFact: text,
    reason: text,
    evidence: z.strictObject({
      wasWritten: z.boolean(),
      userFeedback: z.enum(['confirmed', 'corrected']).optional(),
      missedWrite: z.boolean().optional(),
    }),
  })
  .refine((c) => c.correctDecision === 'NO_WRITE' || c.correctFact.trim().length > 0, {
    message: 'a write decision needs a fact',
    path: ['correctFact'],
  });

export const memoryGateNegativeSchema = z
  .strictObject({
    type: z.literal('memory_gate_negative'),
    conversation,
    incorrectDecision: decision,
    incorrectFact: text,
    correctDecision: decision,
    correctFact: text.optional(),
    rejectionReason: nonEmpty,
    originalReason: text.optional(),
  })
  .refine((c) => c.correctDecision === 'NO_WRITE' || Boolean(c.correctFact?.trim()), {
    message: 'a write decision needs a fact',
    path: ['correctFact'],
  });

export const writeGuardianSchema = z.strictObject({
  type: z.literal('write_guardian_decision'),
  candidateFact: nonEmpty,
  targetFile: memoryFile,
  currentFileContent: text,
  decision: guardianAction,
  reason: text.optional(),
  /** The file after the write (what the guardian produced), when it wrote. */
  newFileContent: text.optional(),
  userCorrection: z
    .strictObject({
      originalDecision: guardianAction,
      correctedDecision: z.enum(['written', 'refused']),
      reason: nonEmpty,
      correctedFact: text.optional(),
      correctedTargetFile: memoryFile.optional(),
    })
    .optional(),
});

const gateOutput = z.strictObject({ decision, reason: text, candidateFact: text.optional() });
const guardianOutput = z.strictObject({
  status: z.enum(['written', 'refused', 'failed', 'skipped']),
  reason: text.optional(),
  targetFile: memoryFile.optional(),
  candidateFact: text.optional(),
});

export const annotatedTurnSchema = z.strictObject({
  type: z.literal('annotated_turn'),
  conversationId: z.string().min(1),
  turnNumber: z.number().int().min(0),
  context: z.array(message).max(200),
  memoryGate: z.strictObject({
    input: z.strictObject({ currentUserMessage: text, currentAgentReply: text }),
    output: gateOutput,
    label,
    correctedOutput: gateOutput.optional(),
  }),
  writeGuardian: z.strictObject({
    input: z.strictObject({ candidateFact: text, targetFile: memoryFile, currentContent: text }),
    output: guardianOutput,
    label,
    correctedOutput: guardianOutput.optional(),
  }),
});

export const SAMPLE_CONTENT_SCHEMAS = {
  memory_gate_positive: memoryGatePositiveSchema,
  memory_gate_negative: memoryGateNegativeSchema,
  write_guardian_decision: writeGuardianSchema,
  annotated_turn: annotatedTurnSchema,
} satisfies Record<SampleType, z.ZodType>;

export interface SampleIssue {
  /** Dotted path inside the content, e.g. "conversation.0.message" ("" for the whole object). */
  field: string;
  message: string;
}

/** Checks content against its sample type's schema; an empty list means it fits. */
export function sampleContentIssues(type: SampleType, content: unknown): SampleIssue[] {
  const schema = SAMPLE_CONTENT_SCHEMAS[type];
  if (!schema) return [{ field: 'type', message: `unknown sample type ${String(type)}` }];
  const r = schema.safeParse(content);
  if (r.success) return [];
  return r.error.issues.map((i) => {
    const field = i.path.map(String).join('.');
    // an unrecognized key names the key itself, so "bogus" is what the curator reads
    const keys = (i as { keys?: string[] }).keys;
    return { field: keys?.length ? [field, keys[0]].filter(Boolean).join('.') : field, message: i.message };
  });
}
