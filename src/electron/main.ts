// The Electron shell: single instance, one locked-down window, the menu, IPC wiring, drag-out.
// It takes Electron's API as a parameter so a test can run it with a recorder (the real 'electron'
// module cannot load without its binary); everything with authority lives in app/, ipc/ and services/.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Electron from 'electron';
import { CHANGE_EVENT_CHANNEL } from '../shared/contract';
import { openInitialWorkspace } from '../api/firstRun';
import { menuTemplate } from './menu';
import type { PickPurpose } from '../api/pathPolicy';
import { createAppRuntime, type AppRuntime } from '../api/runtime';
import { installContentsSecurity, installSessionSecurity, secureWebPreferences } from './windowSecurity';
import { loadWindowState, saveWindowState, type WindowState } from './windowState';
import { appUrlMatcher, registerIpcHandlers } from './ipc';
import { backupDatabase } from '../core/lifecycle/backup';

export type ElectronApi = Pick<typeof Electron, 'app' | 'BrowserWindow' | 'ipcMain' | 'session' | 'Menu' | 'dialog' | 'nativeImage'>;

export interface ShellOptions {
  /** Folder of the built main bundle (out/main); preload and renderer are its siblings. */
  mainDir?: string;
  argv?: string[];
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

export interface Shell {
  /** Resolves when the window is created (or rejects when start-up failed). */
  ready: Promise<void>;
  runtime(): AppRuntime | null;
  window(): Electron.BrowserWindow | null;
  /** False when another instance already runs: this one quits. */
  primary: boolean;
}

/** A 1x1 transparent PNG: startDrag needs a non-empty icon on macOS. */
const DRAG_ICON = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** The Electron-ABI copy of better-sqlite3 that `npm start`'s prestart builds (scripts/prepare-electron.cjs). */
export function electronSqliteBinding(appPath: string): string | undefined {
  const file = path.join(appPath, '.electron-native', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  return fs.existsSync(file) ? file : undefined;
}

function workspaceArg(argv: string[]): string | null {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--workspace' && argv[i + 1]) return path.resolve(argv[i + 1]);
    if (a.startsWith('--workspace=')) return path.resolve(a.slice('--workspace='.length));
  }
  return null;
}

export function startShell(electron: ElectronApi, opts: ShellOptions = {}): Shell {
  const { app, BrowserWindow, ipcMain, session, Menu, dialog, nativeImage } = electron;
  const mainDir = opts.mainDir ?? __dirname;
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const argv = opts.argv ?? process.argv;
  let win: Electron.BrowserWindow | null = null;
  let runtime: AppRuntime | null = null;

  const primary = app.requestSingleInstanceLock();
  if (!primary) {
    app.quit();
    return { ready: Promise.resolve(), runtime: () => null, window: () => null, primary: false };
  }
  app.on('second-instance', () => {
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.focus();
  });
  // Every renderer is sandboxed, including any created later.
  app.enableSandbox();
  app.on('web-contents-created', (_event, contents) => installContentsSecurity(contents));
  app.on('window-all-closed', () => {
    if (platform !== 'darwin') app.quit();
  });
  app.on('before-quit', () => void runtime?.close());

  const indexHtml = path.join(mainDir, '..', 'renderer', 'index.html');
  // The dev server URL is honoured only in development: a packaged app always loads its own asar page,
  // so an environment variable cannot point a user's app at another origin.
  const devUrl = app.isPackaged ? undefined : env.ELECTRON_RENDERER_URL;
  const isAppUrl = appUrlMatcher(pathToFileURL(indexHtml).toString(), devUrl);

  const ready = app.whenReady().then(async () => {
    const stateDir = app.getPath('userData');
    installSessionSecurity(session.defaultSession);
    const nativeBinding = electronSqliteBinding(app.getAppPath());
    // Every connection (services that open their own, the demo generator, backups) picks this up.
    if (nativeBinding) process.env.REFLECTION_SQLITE_BINDING = nativeBinding;
    const rt = createAppRuntime({
      mode: 'electron',
      stateDir,
      version: app.getVersion(),
      nativeBinding,
      startDrag: (file) => win?.webContents.startDrag({ file, icon: nativeImage.createFromDataURL(DRAG_ICON) }),
    });
    runtime = rt;
    try {
      openInitialWorkspace(rt.session, stateDir, workspaceArg(argv));
    } catch (e) {
      dialog.showErrorBox('Reflection Workbench', `The workspace could not be opened: ${(e as Error).message}`);
    }
    registerIpcHandlers(ipcMain, rt.registry, { mainFrame: () => win?.webContents.mainFrame ?? null, isAppUrl });
    rt.paths.setPicker((purpose, defaultPath) => pickPath(purpose, defaultPath));
    rt.session.onChange((event) => {
      if (win && !win.isDestroyed()) win.webContents.send(CHANGE_EVENT_CHANNEL, event);
      if (event.type === 'workspace') rebuildMenu();
    });

    const state = loadWindowState(stateDir);
    win = new BrowserWindow({
      x: state.x,
      y: state.y,
      width: state.width,
      height: state.height,
      minWidth: 900,
      minHeight: 600,
      show: false,
      title: 'Reflection Workbench',
      webPreferences: secureWebPreferences(path.join(mainDir, '..', 'preload', 'index.js')),
    });
    if (state.maximized) win.maximize();
    const remember = () => {
      if (!win || win.isDestroyed()) return;
      const b = win.getNormalBounds();
      const next: WindowState = { x: b.x, y: b.y, width: b.width, height: b.height, maximized: win.isMaximized() };
      saveWindowState(stateDir, next);
    };
    win.on('close', remember);
    win.on('closed', () => {
      win = null;
      // Paths picked in this window's dialogs are not handed to a later window.
      runtime?.paths.clearPicked();
    });
    win.once('ready-to-show', () => win?.show());
    rebuildMenu();
    if (devUrl) await win.loadURL(devUrl);
    else await win.loadFile(indexHtml);
  });
  ready.catch((e: Error) => {
    dialog.showErrorBox('Reflection Workbench could not start', e.message);
    app.quit();
  });

  function rebuildMenu(): void {
    const rt = runtime;
    if (!rt) return;
    Menu.setApplicationMenu(
      Menu.buildFromTemplate(
        menuTemplate({
          isMac: platform === 'darwin',
          recent: () => rt.session.recent(),
          openRecent: (dir) => openFolder(dir),
          openWorkspace: () => {
            const pick = win
              ? dialog.showOpenDialog(win, { title: 'Open Workspace', properties: ['openDirectory'] })
              : dialog.showOpenDialog({ title: 'Open Workspace', properties: ['openDirectory'] });
            void pick.then((r) => {
              if (!r.canceled && r.filePaths[0]) openFolder(r.filePaths[0]);
            });
          },
          backup: () => {
            const ctx = rt.session.isOpen() ? rt.session.serviceContext() : null;
            if (!ctx) return;
            // Suggest the backups folder; the user may pick another place (the native dialog confirms a replace).
            const backups = rt.paths.backupsDir();
            fs.mkdirSync(backups, { recursive: true });
            const options = { title: 'Backup Database', defaultPath: path.join(backups, `reflection-backup-${Date.now()}.db`) };
            const pick = win ? dialog.showSaveDialog(win, options) : dialog.showSaveDialog(options);
            void pick.then(async (r) => {
              if (r.canceled || !r.filePath) return;
              try {
                const result = await backupDatabase(ctx, { output: r.filePath, overwrite: true });
                void dialog.showMessageBox({ message: `Backup written: ${result.file} (${result.bytes} bytes)` });
              } catch (e) {
                dialog.showErrorBox('Backup failed', (e as Error).message);
              }
            });
          },
        }),
      ),
    );
  }

  /** The native dialog behind dialog.pick: what the user picks here the renderer may then name. */
  async function pickPath(purpose: PickPurpose, defaultPath?: string): Promise<string | null> {
    if (purpose === 'backupFile') {
      const options = { title: 'Backup Database', defaultPath, filters: [{ name: 'SQLite database', extensions: ['db'] }] };
      const r = await (win ? dialog.showSaveDialog(win, options) : dialog.showSaveDialog(options));
      return r.canceled || !r.filePath ? null : r.filePath;
    }
    const properties: Array<'openDirectory' | 'openFile'> = purpose === 'importFile' ? ['openFile'] : ['openDirectory'];
    const options = { title: purpose === 'workspace' ? 'Open Workspace' : 'Import From', properties };
    const r = await (win ? dialog.showOpenDialog(win, options) : dialog.showOpenDialog(options));
    return r.canceled || !r.filePaths[0] ? null : r.filePaths[0];
  }

  function openFolder(dir: string): void {
    if (!runtime) return;
    try {
      runtime.paths.notePicked(dir);
      runtime.jobs.cancelAll();
      runtime.session.open(dir);
    } catch (e) {
      dialog.showErrorBox('Open Workspace', (e as Error).message);
    }
  }

  return { ready, runtime: () => runtime, window: () => win, primary: true };
}

// Started only inside Electron; under Node (tests) the module just exports startShell.
if (process.versions.electron && !process.env.VITEST) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- electron is loaded only inside Electron, so Node never resolves it
  startShell(require('electron') as ElectronApi);
}
