// The shell's native dialogs: open a workspace, back up the database, and the picker behind dialog.pick.
import fs from 'node:fs';
import path from 'node:path';
import type * as Electron from 'electron';
import type { PickPurpose } from '../api/pathPolicy';
import type { AppRuntime } from '../api/runtime';
import { backupInWorker } from '../api/jobs/internal';

/** What the dialogs need from the shell: Electron's dialog and the current window and runtime. */
export interface DialogHost {
  dialog: Electron.Dialog;
  window(): Electron.BrowserWindow | null;
  runtime(): AppRuntime | null;
}

function showOpen(host: DialogHost, options: Electron.OpenDialogOptions): Promise<Electron.OpenDialogReturnValue> {
  const win = host.window();
  return win ? host.dialog.showOpenDialog(win, options) : host.dialog.showOpenDialog(options);
}

function showSave(host: DialogHost, options: Electron.SaveDialogOptions): Promise<Electron.SaveDialogReturnValue> {
  const win = host.window();
  return win ? host.dialog.showSaveDialog(win, options) : host.dialog.showSaveDialog(options);
}

/** Opens a workspace folder the user chose (menu or recent list); a failure is shown, not thrown. */
export function openFolder(host: DialogHost, dir: string): void {
  const runtime = host.runtime();
  if (!runtime) return;
  try {
    runtime.paths.notePicked(dir);
    runtime.jobs.cancelAll();
    runtime.session.open(dir);
  } catch (e) {
    host.dialog.showErrorBox('Open Workspace', (e as Error).message);
  }
}

/** File > Open Workspace: asks for a folder, then opens it. */
export function chooseWorkspace(host: DialogHost): void {
  void showOpen(host, { title: 'Open Workspace', properties: ['openDirectory'] }).then((r) => {
    if (!r.canceled && r.filePaths[0]) openFolder(host, r.filePaths[0]);
  });
}

/** File > Backup Database: asks where, then writes a backup of the open workspace's database. */
export function backupFromMenu(host: DialogHost, rt: AppRuntime): void {
  const ctx = rt.session.isOpen() ? rt.session.serviceContext() : null;
  if (!ctx) return;
  // Suggest the backups folder; the user may pick another place (the native dialog confirms a replace).
  const backups = rt.paths.backupsDir();
  fs.mkdirSync(backups, { recursive: true });
  const options = { title: 'Backup Database', defaultPath: path.join(backups, `reflection-backup-${Date.now()}.db`) };
  void showSave(host, options).then(async (r) => {
    if (r.canceled || !r.filePath) return;
    try {
      // the save dialog confirmed a replace; the pages are copied in a job worker, off main's thread
      const result = await backupInWorker(ctx, { output: r.filePath, overwrite: true });
      void host.dialog.showMessageBox({ message: `Backup written: ${result.file} (${result.bytes} bytes)` });
    } catch (e) {
      host.dialog.showErrorBox('Backup failed', (e as Error).message);
    }
  });
}

/** The native dialog behind dialog.pick: what the user picks here the renderer may then name. */
export async function pickPath(host: DialogHost, purpose: PickPurpose, defaultPath?: string): Promise<string | null> {
  if (purpose === 'backupFile') {
    const options = { title: 'Backup Database', defaultPath, filters: [{ name: 'SQLite database', extensions: ['db'] }] };
    const r = await showSave(host, options);
    return r.canceled || !r.filePath ? null : r.filePath;
  }
  const properties: Array<'openDirectory' | 'openFile'> = purpose === 'importFile' ? ['openFile'] : ['openDirectory'];
  const options = { title: purpose === 'workspace' ? 'Open Workspace' : 'Import From', properties };
  const r = await showOpen(host, options);
  return r.canceled || !r.filePaths[0] ? null : r.filePaths[0];
}
