import { z } from 'zod';

/** Seed 000's redactPatterns: key names whose `key=value` / `key: value` values are secrets. */
export const DEFAULT_REDACT_PATTERNS = ['api[_-]?key', 'password', 'token', 'secret', '-----BEGIN.*-----'];

const weight = z.number().min(0).max(10);

/** Fine-tunable model classes: tokenizer and the longest training example (tokens) each accepts. */
export const TARGET_MODELS = {
  'gpt-4o': { encoding: 'o200k_base', limit: 65_536 },
  'gpt-4o-mini': { encoding: 'o200k_base', limit: 65_536 },
  'gpt-4.1': { encoding: 'o200k_base', limit: 65_536 },
  'gpt-4.1-mini': { encoding: 'o200k_base', limit: 65_536 },
  'gpt-3.5-turbo': { encoding: 'cl100k_base', limit: 16_385 },
} as const;
export type TargetModel = keyof typeof TARGET_MODELS;
const TARGET_MODEL_NAMES = Object.keys(TARGET_MODELS) as [TargetModel, ...TargetModel[]];

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
    export: z
      .object({
        /** Hugging Face licence id for the dataset card; "other" needs licenseName and licenseLink. */
        license: z.string().trim().min(1).max(100).default('other'),
        licenseName: z.string().trim().min(1).max(100).default('private-memory-data'),
        /** A URL, or a file name written beside the data (a short LICENSE.md is written when missing). */
        licenseLink: z.string().trim().min(1).max(500).default('LICENSE.md'),
        /** The model the data is for: its tokenizer and context limit drive the long-example warning. */
        targetModel: z.enum(TARGET_MODEL_NAMES).default('gpt-4o-mini'),
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
