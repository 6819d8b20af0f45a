// Handlers this area owns outright: app info, workspace session, jobs, settings, backup, drag-out.
import { AppError } from '../../shared/errors';
import { resolveExportFile } from '../exportFiles';
import { pathPolicyOf } from '../pathPolicy';
import { backupDatabase, type BackupOptions } from '../../core/lifecycle/backup';
import { loadSettings, saveSettings, type LoadedSettings } from '../../core/lifecycle/settings';
import type { HandlerEnv, Handlers } from '../registry';

const settingsDto = (s: LoadedSettings) => ({
  file: s.file,
  values: s.settings as unknown as Record<string, unknown>,
  problems: s.warnings,
});

/** The renderer is untrusted: a name in the backups folder, or a path the user picked in a save dialog. */
export const backupOptions = (input: { file?: string }, env: HandlerEnv): BackupOptions => ({
  output: pathPolicyOf(env.session).backupTarget(input.file),
});

export const appHandlers = {
  'app.info': (_input, env) => ({ mode: env.mode, version: env.version }),
  'workspace.current': (_input, env) => env.session.current(),
  'workspace.recent': (_input, env) => env.session.recent(),
  'workspace.open': (input, env) => {
    const dir = pathPolicyOf(env.session).checkWorkspace(input.dir);
    env.jobs.cancelAll();
    return env.session.open(dir);
  },
  'dialog.pick': async (input, env) => ({ path: await pathPolicyOf(env.session).pick(input.purpose) }),

  'jobs.get': (input, env) => env.jobs.get(input.jobId),
  'jobs.list': (_input, env) => env.jobs.list(),
  'jobs.cancel': (input, env) => env.jobs.cancel(input.jobId),

  'settings.get': (_input, env) => settingsDto(loadSettings(env.session.dir)),
  'settings.set': (input, env) => {
    pathPolicyOf(env.session).checkSettingsPatch(input.patch);
    return settingsDto(saveSettings(env.session.dir, input.patch));
  },

  'backup.create': (input, env) => backupDatabase(env.session.serviceContext(), backupOptions(input, env)),

  'exports.startDrag': (input, env) => {
    if (!env.startDrag) throw new AppError('Invalid', 'drag-out needs the desktop app; in the browser use the download link');
    const file = resolveExportFile(env.session.db, env.session.dir, input.exportId, input.fileName);
    env.startDrag(file);
    return { started: true, file };
  },
} satisfies Partial<Handlers>;
