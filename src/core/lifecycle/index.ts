import path from 'node:path';
import type { ServiceContext } from '../context';
import { startLiveCapture, type LiveCapture, type LiveCaptureEvent } from './live';
import {
  startConfiguredArchive,
  startRetentionSchedule,
  type ArchiveSchedule,
  type RetentionSchedule,
  type ScheduledArchive,
  type ScheduledPrune,
} from './schedule';
import type { PruneResult } from './retention';
import type { ScheduledArchiveResult } from './archive';
import { loadSettings, type WorkbenchSettings } from './settings';
import type { Clock } from './state';

export {
  loadSettings,
  saveSettings,
  validateSettings,
  defaultSettings,
  getSetting,
  settingsPath,
  type WorkbenchSettings,
  type LoadedSettings,
} from './settings';
export { backupDatabase, type BackupOptions, type BackupResult } from './backup';
export { addExclusion, listExclusions, removeExclusion, purgeExclusion } from './exclusions';
export { pruneOldData, type PruneOptions, type PruneResult } from './retention';
export { exportConversations, runScheduledArchive, removeOldArchives, exportsDir, type ArchiveLine } from './archive';
export {
  startArchiveSchedule,
  startConfiguredArchive,
  startRetentionSchedule,
  type ArchiveSchedule,
  type RetentionSchedule,
  type ScheduledArchive,
  type ScheduledPrune,
} from './schedule';
export { startLiveCapture, type LiveCapture, type LiveCaptureEvent, type LiveCaptureOptions } from './live';

export interface WorkspaceLifecycle {
  settings: WorkbenchSettings;
  warnings: string[];
  capture: LiveCapture | null;
  archive: ArchiveSchedule | null;
  retention: RetentionSchedule | null;
  stop(): Promise<void>;
}

/**
 * What the app runs while a workspace is open: live capture when a plugin root is configured
 * (settings.pluginRoot, relative paths from the workspace) and the scheduled conversation
 * archive when storage.jsonlExport is enabled, and retention (storage.retentionDays) daily. Each part is optional and stops with the rest.
 */
export function startWorkspaceLifecycle(
  ctx: ServiceContext,
  options: {
    pluginRoot?: string;
    onEvent?: (e: LiveCaptureEvent) => void;
    onArchiveError?: (e: unknown) => void;
    onArchive?: (r: ScheduledArchiveResult) => void;
    onPrune?: (r: PruneResult) => void;
    onPruneError?: (e: unknown) => void;
    /** How the daily prune runs (the app: in a job worker); default on this thread. */
    prune?: ScheduledPrune;
    /** How a scheduled archive run writes (the app: in a job worker); default on this thread. */
    archive?: ScheduledArchive;
    /** The schedules' clock (tests drive a day of schedule without waiting); default the system's. */
    clock?: Clock;
  } = {},
): WorkspaceLifecycle {
  const { settings, warnings } = loadSettings(ctx.workspaceDir);
  const root = options.pluginRoot ?? settings.pluginRoot;
  if (root && !settings.storage.enabled) warnings.push('storage.enabled is false: live capture is off');
  const capture =
    root && settings.storage.enabled
      ? startLiveCapture(ctx, {
          pluginRoot: path.resolve(ctx.workspaceDir, root),
          auditMatchWindowMs: settings.liveCapture.auditMatchWindowMs,
          pollIntervalMs: settings.liveCapture.pollIntervalMs,
          onEvent: options.onEvent,
        })
      : null;
  let archive: ArchiveSchedule | null = null;
  try {
    archive = startConfiguredArchive(ctx, settings, {
      onError: options.onArchiveError,
      onRun: options.onArchive,
      archive: options.archive,
      clock: options.clock,
    });
  } catch (e) {
    void capture?.stop();
    throw e;
  }
  const days = settings.storage.retentionDays;
  const retention = days
    ? startRetentionSchedule(ctx, {
        days,
        onRun: options.onPrune,
        onError: options.onPruneError,
        prune: options.prune,
        clock: options.clock,
      })
    : null;
  return {
    settings,
    warnings,
    capture,
    archive,
    retention,
    stop: async () => {
      retention?.stop();
      await retention?.idle();
      archive?.stop();
      await archive?.idle();
      await capture?.stop();
    },
  };
}
