// App, workspace, jobs, settings, backup and drag-out: the contracts of the shell itself, and the change
// events main pushes. Each output is a zod schema with its TS type inferred from it. Pure TS + zod.
import { z } from 'zod';
import { ERROR_KINDS } from '../errors';
import { DATA_AREAS } from './changes';
import { empty, id, mutation, query } from './define';

export const appInfoSchema = z.object({ mode: z.enum(['electron', 'web']), version: z.string() });
export type AppInfo = z.infer<typeof appInfoSchema>;

export const workspaceInfoSchema = z.object({
  dir: z.string(),
  name: z.string(),
  dbFile: z.string(),
  /** The demo workspace generated on first run. */
  isDemo: z.boolean(),
  openedAt: z.number(),
  counts: z.object({ sessions: z.number(), turns: z.number(), decisions: z.number(), writes: z.number(), samples: z.number() }),
});
export type WorkspaceInfo = z.infer<typeof workspaceInfoSchema>;

export const recentWorkspaceSchema = z.object({ dir: z.string(), name: z.string(), lastOpenedAt: z.number(), exists: z.boolean() });
export type RecentWorkspace = z.infer<typeof recentWorkspaceSchema>;

export const JOB_STATES = ['running', 'done', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];
export const jobStatusSchema = z.object({
  jobId: z.string(),
  channel: z.string(),
  state: z.enum(JOB_STATES),
  /**
   * A cancel was asked for and the job has not stopped yet: it ends its current step, and work that
   * must not be cut (a collection's index rebuild) runs to its end. State stays running until then.
   */
  cancelling: z.boolean(),
  done: z.number(),
  total: z.number().nullable(),
  label: z.string().nullable(),
  startedAt: z.number(),
  finishedAt: z.number().nullable(),
  /** The job channel's result (its own contract checks it when the job ends). */
  result: z.unknown(),
  /** Why it did not finish; kind Cancelled when the curator stopped it. */
  error: z.object({ kind: z.enum(ERROR_KINDS), message: z.string() }).nullable(),
});
export type JobStatus = z.infer<typeof jobStatusSchema>;

export const settingsDtoSchema = z.object({
  file: z.string(),
  /** The effective settings (defaults applied). */
  values: z.record(z.string(), z.unknown()),
  /** Problems found in the file; the defaults stay in force for those keys. */
  problems: z.array(z.string()),
});
export type SettingsDto = z.infer<typeof settingsDtoSchema>;

export const backupResultSchema = z.object({
  file: z.string(),
  bytes: z.number(),
  pages: z.number(),
  integrity: z.string(),
  elapsedMs: z.number(),
});
export type BackupResult = z.infer<typeof backupResultSchema>;

export const dragResultSchema = z.object({ started: z.boolean(), file: z.string() });
export type DragResult = z.infer<typeof dragResultSchema>;

// ---- push events ----
export const DATA_CHANGE_SOURCES = ['live-capture', 'archive', 'retention'] as const;
export type DataChangeSource = (typeof DATA_CHANGE_SOURCES)[number];
export const changeEventSchema = z.discriminatedUnion('type', [
  /** `source` names what wrote, when main knows it (live capture, the archive schedule, retention);
   *  `areas` (and `ids`) what changed. Without both, another process wrote: any area may have changed. */
  z.object({
    type: z.literal('data'),
    version: z.number(),
    at: z.number(),
    source: z.enum(DATA_CHANGE_SOURCES).optional(),
    areas: z.array(z.enum(DATA_AREAS)).optional(),
    ids: z.array(z.string()).optional(),
  }),
  z.object({ type: z.literal('job'), job: jobStatusSchema }),
  z.object({ type: z.literal('workspace'), workspace: workspaceInfoSchema }),
]);
export type ChangeEvent = z.infer<typeof changeEventSchema>;

export const appContracts = {
  'app.info': query(appInfoSchema)(empty, 'Runtime mode and version'),
  'workspace.current': query(workspaceInfoSchema)(empty, 'The open workspace'),
  'workspace.recent': query(z.array(recentWorkspaceSchema))(empty, 'Recently opened workspaces, newest first'),
  'workspace.open': mutation(workspaceInfoSchema)(z.strictObject({ dir: z.string().min(1).max(4096) }), 'Open another workspace folder'),
  'dialog.pick': query(z.object({ path: z.string().nullable() }))(
    z.strictObject({ purpose: z.enum(['workspace', 'importFolder', 'importFile', 'backupFile']) }),
    'Open a native file dialog (desktop app only); workspace.open, import.* and backup.create then accept the picked path',
  ),

  'jobs.get': query(jobStatusSchema)(z.strictObject({ jobId: id }), 'State, progress and result of a job'),
  'jobs.list': query(z.array(jobStatusSchema))(empty, 'Jobs of this app run, newest first'),
  'jobs.cancel': mutation(jobStatusSchema)(z.strictObject({ jobId: id }), 'Cancel a running job'),

  'settings.get': query(settingsDtoSchema)(empty, 'Workspace settings (workbench.json) with defaults applied'),
  'settings.set': mutation(settingsDtoSchema)(
    z.strictObject({ patch: z.record(z.string(), z.unknown()) }),
    'Change workspace settings; invalid values are refused with a message naming them',
  ),
  'backup.create': mutation(backupResultSchema)(
    z.strictObject({ file: z.string().min(1).max(4096).optional() }),
    'Consistent copy of the database (SQLite online backup)',
  ),
  'exports.startDrag': mutation(dragResultSchema)(
    z.strictObject({ exportId: id, fileName: z.string().min(1).max(255) }),
    'Drag an export file out of the window (Electron only; browser mode downloads instead)',
  ),
};
