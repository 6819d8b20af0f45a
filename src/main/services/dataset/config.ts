import { z } from 'zod';

/** Seed 000's redactPatterns: key names whose `key=value` / `key: value` values are secrets. */
export const DEFAULT_REDACT_PATTERNS = ['api[_-]?key', 'password', 'token', 'secret', '-----BEGIN.*-----'];

const weight = z.number().min(0).max(10);

/**
 * Seed 000's DatasetCollectionStrategy plus the datasetCollection settings, with the seed's defaults.
 * The lifecycle settings loader composes this schema into workbench.json; services take the parsed object.
 */
export const datasetCollectionConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
    autoCollect: z.boolean().default(true),
    positiveCriteria: z
      .object({
        wasWritten: z.boolean().default(true),
        noUserObjection: z.boolean().default(true),
        notRolledBackWithinDays: z.number().min(0).max(3650).default(7),
        minQualityScore: z.number().min(0).max(1).default(0.7),
      })
      .prefault({}),
    negativeCriteria: z
      .object({
        gateProposedWrite: z.boolean().default(true),
        guardianRefused: z.boolean().default(true),
        userLaterRequestedSimilar: z.boolean().default(true),
        hasBehaviorCorrection: z.boolean().default(true),
      })
      .prefault({}),
    manualReviewCriteria: z
      .object({
        lowConfidence: z.boolean().default(true),
        containsSensitiveInfo: z.boolean().default(true),
        userFeedbackReceived: z.boolean().default(true),
        mediumQualityScore: z.boolean().default(true),
      })
      .prefault({}),
    autoApproveCriteria: z
      .object({
        hasConfirmedCorrection: z.boolean().default(true),
        highQualityScore: z.boolean().default(true),
        matchesApprovedPattern: z.boolean().default(true),
      })
      .prefault({}),
    privacyFiltering: z
      .object({
        enabled: z.boolean().default(true),
        redactPatterns: z.array(z.string().min(1)).default(DEFAULT_REDACT_PATTERNS),
        /** Person names are low-confidence matches; off unless asked for. */
        detectNames: z.boolean().default(false),
      })
      .prefault({}),
    qualityScoring: z
      .object({
        enabled: z.boolean().default(true),
        weights: z
          .object({
            conversationClarity: weight.default(0.4),
            decisionConfidence: weight.default(0.35),
            factVerifiability: weight.default(0.25),
          })
          .prefault({})
          .refine((w) => w.conversationClarity + w.decisionConfidence + w.factVerifiability > 0, {
            message: 'at least one quality weight must be above 0',
          }),
        /** At or above: highQualityScore (auto-approve). */
        highThreshold: z.number().min(0).max(1).default(0.85),
        /** Below: lowConfidence when decisionConfidence is under it. */
        lowConfidenceThreshold: z.number().min(0).max(1).default(0.5),
      })
      .prefault({}),
    dedupe: z
      .object({
        /** Seed 004: at or above, the same sample (one cluster). */
        sameThreshold: z.number().min(0).max(1).default(0.85),
        /** Seed 004: at or above (and below sameThreshold), related. */
        relatedThreshold: z.number().min(0).max(1).default(0.6),
      })
      .prefault({}),
    /** How many following user turns are read for feedback on a decision. */
    feedbackWindowTurns: z.number().int().min(0).max(20).default(2),
  })
  .prefault({});

export type DatasetCollectionConfig = z.output<typeof datasetCollectionConfigSchema>;
export type DatasetCollectionConfigInput = z.input<typeof datasetCollectionConfigSchema>;

export function defaultDatasetConfig(): DatasetCollectionConfig {
  return datasetCollectionConfigSchema.parse(undefined);
}

/** Parses a partial config (e.g. from workbench.json), naming the offending field on error. */
export function resolveDatasetConfig(input?: DatasetCollectionConfigInput | DatasetCollectionConfig): DatasetCollectionConfig {
  return datasetCollectionConfigSchema.parse(input ?? {});
}
