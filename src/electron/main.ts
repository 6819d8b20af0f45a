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
import { createAppRuntime, type AppRuntime } from '../api/runtime';
import { installContentsSecurity, installSessionSecurity } from './windowSecurity';
import { appUrlMatcher, registerIpcHandlers } from './ipc';
import { backupFromMenu, chooseWorkspace, openFolder, pickPath, type DialogHost } from './dialogs';
import { createMainWindow } from './mainWindow';

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
    const value = argv[i + 1];
    if (a === '--workspace' && value) return path.resolve(value);
    if (a?.startsWith('--workspace=')) return path.resolve(a.slice('--workspace='.length));
  }
  return null;
}

/** What the shell holds while it runs: at most one window and one runtime. */
interface ShellState {
  win: Electron.BrowserWindow | null;
  runtime: AppRuntime | null;
}

/** Where the renderer page comes from and which URLs count as the app's own. */
interface PageSource {
  indexHtml: string;
  devUrl: string | undefined;
  isAppUrl: ReturnType<typeof appUrlMatcher>;
}

export function startShell(electron: ElectronApi, opts: ShellOptions = {}): Shell {
  const { app, dialog } = electron;
  const mainDir = opts.mainDir ?? __dirname;
  const platform = opts.platform ?? process.platform;
  const state: ShellState = { win: null, runtime: null };

  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return { ready: Promise.resolve(), runtime: () => null, window: () => null, primary: false };
  }
  installAppEvents(electron, state, platform);

  const indexHtml = path.join(mainDir, '..', 'renderer', 'index.html');
  // The dev server URL is honoured only in development: a packaged app always loads its own asar page,
  // so an environment variable cannot point a user's app at another origin.
  const devUrl = app.isPackaged ? undefined : (opts.env ?? process.env).ELECTRON_RENDERER_URL;
  const page: PageSource = { indexHtml, devUrl, isAppUrl: appUrlMatcher(pathToFileURL(indexHtml).toString(), devUrl) };

  const ready = app.whenReady().then(() => launch(electron, state, { mainDir, platform, argv: opts.argv ?? process.argv, page }));
  ready.catch((e: Error) => {
    dialog.showErrorBox('Reflection Workbench could not start', e.message);
    app.quit();
  });
  return { ready, runtime: () => state.runtime, window: () => state.win, primary: true };
}

/** App-level events: focus on a second launch, sandbox and lock down every renderer, quit and close the runtime. */
function installAppEvents(electron: ElectronApi, state: ShellState, platform: NodeJS.Platform): void {
  const { app } = electron;
  app.on('second-instance', () => {
    const win = state.win;
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
  app.on('before-quit', () => void state.runtime?.close());
}

/** Once Electron is ready: the runtime, its IPC, the window and the menu, then the page. */
async function launch(
  electron: ElectronApi,
  state: ShellState,
  o: { mainDir: string; platform: NodeJS.Platform; argv: string[]; page: PageSource },
): Promise<void> {
  const { app, dialog, session, BrowserWindow } = electron;
  const stateDir = app.getPath('userData');
  installSessionSecurity(session.defaultSession);
  const host: DialogHost = { dialog, window: () => state.win, runtime: () => state.runtime };
  const rebuildMenu = () => buildMenu(electron, host, o.platform);
  const rt = startRuntime(electron, state, stateDir, o.page.isAppUrl);
  try {
    openInitialWorkspace(rt.session, stateDir, workspaceArg(o.argv));
  } catch (e) {
    dialog.showErrorBox('Reflection Workbench', `The workspace could not be opened: ${(e as Error).message}`);
  }
  rt.paths.setPicker((purpose, defaultPath) => pickPath(host, purpose, defaultPath));
  rt.session.onChange((event) => {
    const win = state.win;
    if (win && !win.isDestroyed()) win.webContents.send(CHANGE_EVENT_CHANNEL, event);
    if (event.type === 'workspace') rebuildMenu();
  });

  const win = createMainWindow({
    BrowserWindow,
    stateDir,
    preloadFile: path.join(o.mainDir, '..', 'preload', 'index.js'),
    onClosed: () => {
      state.win = null;
      // Paths picked in this window's dialogs are not handed to a later window.
      state.runtime?.paths.clearPicked();
    },
  });
  state.win = win;
  rebuildMenu();
  if (o.page.devUrl) await win.loadURL(o.page.devUrl);
  else await win.loadFile(o.page.indexHtml);
}

/** The runtime with Electron's SQLite binding and drag-out, and its registry answering IPC from the app's own page. */
function startRuntime(electron: ElectronApi, state: ShellState, stateDir: string, isAppUrl: PageSource['isAppUrl']): AppRuntime {
  const { app, ipcMain, nativeImage } = electron;
  const nativeBinding = electronSqliteBinding(app.getAppPath());
  // Every connection (services that open their own, the demo generator, backups) picks this up.
  if (nativeBinding) process.env.REFLECTION_SQLITE_BINDING = nativeBinding;
  const rt = createAppRuntime({
    mode: 'electron',
    stateDir,
    version: app.getVersion(),
    nativeBinding,
    startDrag: (file) => state.win?.webContents.startDrag({ file, icon: nativeImage.createFromDataURL(DRAG_ICON) }),
  });
  state.runtime = rt;
  registerIpcHandlers(ipcMain, rt.registry, { mainFrame: () => state.win?.webContents.mainFrame ?? null, isAppUrl });
  return rt;
}

function buildMenu(electron: ElectronApi, host: DialogHost, platform: NodeJS.Platform): void {
  const rt = host.runtime();
  if (!rt) return;
  const { Menu } = electron;
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      menuTemplate({
        isMac: platform === 'darwin',
        recent: () => rt.session.recent(),
        openRecent: (dir) => openFolder(host, dir),
        openWorkspace: () => chooseWorkspace(host),
        backup: () => backupFromMenu(host, rt),
      }),
    ),
  );
}

// Started only inside Electron; under Node (tests) the module just exports startShell.
if (process.versions.electron && !process.env.VITEST) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- electron is loaded only inside Electron, so Node never resolves it
  startShell(require('electron') as ElectronApi);
}
