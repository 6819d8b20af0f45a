import fs from 'node:fs';
import path from 'node:path';
import { Cron } from 'croner';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { sqliteStorageConfigSchema } from '../db/config';
import { STATE_DIR } from '../db/connection';
import { AppError } from '../../shared/errors';
import { describeIssue, parseLenient } from './lenient';
import { datasetCollectionConfigSchema, type DatasetCollectionConfig } from '../dataset/config';

export const SETTINGS_FILE = 'workbench.json';
/** Shortest retention limit (storage.retentionDays, `prune --days`): a typo must not wipe the workspace. */
export const MIN_RETENTION_DAYS = 7;

export const memoryGateAuditingSchema = z
  .object({
    enabled: z.boolean().default(true),
    storeRawLLMResponse: z.boolean().default(true),
    enableStats: z.boolean().default(true),
  })
  .default({ enabled: true, storeRawLLMResponse: true, enableStats: true });

export const writeGuardianAuditingSchema = z
  .object({
    enabled: z.boolean().default(true),
    storeFileSnapshots: z.boolean().default(true),
    enableRollback: z.boolean().default(true),
    maxSnapshotsPerFile: z.number().int().positive().default(100),
  })
  .default({ enabled: true, storeFileSnapshots: true, enableRollback: true, maxSnapshotsPerFile: 100 });

export const liveCaptureSchema = z
  .object({
    /** How long a memory-file change waits for its audit line before it counts as an external write. */
    auditMatchWindowMs: z.number().int().min(100).max(600_000).default(5000),
    /** Poll fallback for file systems where change events are unreliable (network drives, some containers). */
    pollIntervalMs: z.number().int().min(50).max(60_000).default(500),
  })
  .default({ auditMatchWindowMs: 5000, pollIntervalMs: 500 });

export const workbenchSettingsSchema = z.object({
  storage: sqliteStorageConfigSchema.default(sqliteStorageConfigSchema.parse({})),
  memoryGateAuditing: memoryGateAuditingSchema,
  writeGuardianAuditing: writeGuardianAuditingSchema,
  datasetCollection: datasetCollectionConfigSchema,
  /** The plugin's root folder (holds logs/reflection-YYYY-MM-DD.log); enables live capture. */
  pluginRoot: z.string().min(1).optional(),
  liveCapture: liveCaptureSchema,
});

export interface WorkbenchSettings {
  storage: z.infer<typeof sqliteStorageConfigSchema>;
  memoryGateAuditing: z.infer<typeof memoryGateAuditingSchema>;
  writeGuardianAuditing: z.infer<typeof writeGuardianAuditingSchema>;
  datasetCollection: DatasetCollectionConfig;
  pluginRoot?: string;
  liveCapture: z.infer<typeof liveCaptureSchema>;
}

export interface LoadedSettings {
  settings: WorkbenchSettings;
  /** One line per value that was ignored, naming it; the defaults stay in force for those values. */
  warnings: string[];
  file: string;
  exists: boolean;
}

export function settingsPath(workspaceDir: string): string {
  return path.join(workspaceDir, STATE_DIR, SETTINGS_FILE);
}

export function defaultSettings(): WorkbenchSettings {
  return workbenchSettingsSchema.parse({}) as WorkbenchSettings;
}

/** Why a cron expression cannot be used, or undefined when croner accepts it. */
export function cronProblem(expression: string): string | undefined {
  try {
    new Cron(expression, { paused: true, timezone: 'UTC' }).stop();
    return undefined;
  } catch (e) {
    return `not a valid cron expression (${(e as Error).message})`;
  }
}

/** Validates a raw settings object leaf by leaf (see lenient.ts). */
export function validateSettings(raw: unknown): { settings: WorkbenchSettings; warnings: string[] } {
  const warnings: string[] = [];
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    return { settings: defaultSettings(), warnings: ['settings: expected a JSON object; using all defaults'] };
  }
  const settings = parseLenient(workbenchSettingsSchema, raw ?? {}, '', warnings) as WorkbenchSettings;
  const retention = settings.storage.retentionDays;
  if (retention !== undefined && retention < MIN_RETENTION_DAYS) {
    warnings.push(`storage.retentionDays: ${retention} is below the minimum of ${MIN_RETENTION_DAYS} days, ignored`);
    delete settings.storage.retentionDays;
  }
  const schedule = settings.storage.jsonlExport.schedule;
  const problem = schedule === undefined ? undefined : cronProblem(schedule);
  if (problem) {
    warnings.push(`storage.jsonlExport.schedule: ${problem}`);
    delete settings.storage.jsonlExport.schedule;
  }
  return { settings, warnings };
}

function readRaw(file: string): { raw: unknown; exists: boolean; warning?: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { raw: undefined, exists: false };
    return { raw: undefined, exists: true, warning: `${SETTINGS_FILE}: cannot be read (${(e as Error).message}); using all defaults` };
  }
  try {
    return { raw: JSON.parse(text.replace(/^\uFEFF/, '')), exists: true };
  } catch (e) {
    return { raw: undefined, exists: true, warning: `${SETTINGS_FILE}: not valid JSON (${(e as Error).message}); using all defaults` };
  }
}

/** Loads <workspace>/.openclaw-reflection/workbench.json. Never throws for bad content: it warns and falls back. */
export function loadSettings(workspaceDir: string): LoadedSettings {
  const file = settingsPath(workspaceDir);
  const { raw, exists, warning } = readRaw(file);
  const { settings, warnings } = validateSettings(raw);
  return { settings, warnings: warning ? [warning, ...warnings] : warnings, file, exists };
}

export type SettingsPatch = { [key: string]: unknown };

function deepMerge(base: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof base === 'object' && base !== null && !Array.isArray(base) ? { ...(base as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === undefined) continue;
    // null removes a key, so an optional setting (retentionDays, pluginRoot) can be switched off again.
    if (v === null) delete out[k];
    else out[k] = deepMerge(out[k], v);
  }
  return out;
}

/**
 * Merges patch into the stored file and writes it atomically. Unlike loading, saving is strict:
 * a patch that makes any value invalid is refused with a message naming it, and nothing is written.
 */
export function saveSettings(workspaceDir: string, patch: SettingsPatch): LoadedSettings {
  const file = settingsPath(workspaceDir);
  const { raw, warning } = readRaw(file);
  if (warning && fs.existsSync(file)) {
    throw new AppError('Invalid', `${warning.replace('; using all defaults', '')}; fix or remove the file before saving settings`);
  }
  const merged = deepMerge(raw ?? {}, patch) as Record<string, unknown>;
  const strict = workbenchSettingsSchema.strict().safeParse(merged);
  if (!strict.success) {
    const issue = strict.error.issues[0];
    if (issue?.code === 'unrecognized_keys') throw new AppError('Invalid', `${issue.keys.join(', ')}: unknown setting`);
    throw new AppError('Invalid', describeIssue('', strict.error));
  }
  const validated = validateSettings(merged);
  const [problem] = validated.warnings;
  if (problem) throw new AppError('Invalid', problem.replace(', ignored', ''));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic.sync(file, `${JSON.stringify(merged, null, 2)}\n`);
  return { ...validated, file, exists: true };
}

/** Reads one dotted key ("storage.jsonlExport.enabled") from settings. */
export function getSetting(settings: WorkbenchSettings, key: string): unknown {
  let cur: unknown = settings;
  for (const part of key.split('.')) {
    if (typeof cur !== 'object' || cur === null || !(part in (cur as object))) {
      throw new AppError('NotFound', `setting ${key} not found`);
    }
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Builds a patch from a dotted key and a CLI string value (JSON when it parses, else the string). */
export function patchFor(key: string, value: string): SettingsPatch {
  if (!/^[A-Za-z][\w]*(\.[A-Za-z][\w]*)*$/.test(key)) throw new AppError('Invalid', `key: "${key}" is not a dotted setting name`);
  let parsed: unknown = value;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = value;
  }
  const parts = key.split('.');
  const patch: SettingsPatch = {};
  let cur: SettingsPatch = patch;
  parts.forEach((p, i) => {
    if (i === parts.length - 1) cur[p] = parsed;
    else cur = (cur[p] = {}) as SettingsPatch;
  });
  return patch;
}
