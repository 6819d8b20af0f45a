import { z } from 'zod';

// Seed 000's SQLiteStorageConfig, with its defaults.
export const sqliteStorageConfigSchema = z.object({
  enabled: z.boolean().default(true),
  dbPath: z.string().min(1).default('.openclaw-reflection/reflection.db'),
  walMode: z.boolean().default(true),
  autoVacuum: z.boolean().default(true),
  busyTimeoutMs: z.number().int().min(0).max(600_000).default(5000),
  cacheSizePages: z.number().int().default(-2000),
  mmapSizeMB: z.number().int().min(0).max(65_536).default(256),
  retentionDays: z.number().int().positive().optional(),
  jsonlExport: z
    .object({
      enabled: z.boolean().default(false),
      schedule: z.string().optional(),
      retentionDays: z.number().int().positive().default(30),
    })
    .default({ enabled: false, retentionDays: 30 }),
});
export type SQLiteStorageConfig = z.infer<typeof sqliteStorageConfigSchema>;
export type SQLiteStorageConfigInput = z.input<typeof sqliteStorageConfigSchema>;

export const DEFAULT_STORAGE_CONFIG: SQLiteStorageConfig = sqliteStorageConfigSchema.parse({});
