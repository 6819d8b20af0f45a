// The Electron shell run with a recorder in place of Electron's API (the binary cannot run here):
// every security setting, handler and behaviour of src/electron/main.ts is read back from the recorder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CHANGE_EVENT_CHANNEL, CHANNELS, ipcChannel } from '../../src/shared/contract';
import { startShell, type ElectronApi, type Shell } from '../../src/electron/main';
import { generateDemoWorkspace } from '../../src/core/demo';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

type Fn = (...args: any[]) => any;

class Emitter {
  readonly listeners = new Map<string, Fn[]>();
  on(event: string, fn: Fn) {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), fn]);
    return this;
  }
  once(event: string, fn: Fn) {
    return this.on(event, fn);
  }
  emit(event: string, ...args: unknown[]) {
    for (const fn of this.listeners.get(event) ?? []) fn(...args);
  }
}

function recorder(opts: { userData: string; lock?: boolean; isPackaged?: boolean }) {
  const calls: string[] = [];
  const ipc = new Map<string, Fn>();
  const menus: Array<{ template: Array<{ label?: string; submenu?: Array<{ label?: string; click?: Fn; submenu?: unknown[] }> }> }> = [];
  const windows: FakeWindow[] = [];
  const errors: string[] = [];
  const sessionHandlers: { permissionRequest?: Fn; permissionCheck?: Fn; headers?: Fn } = {};
  const pickedFolders: string[] = [];

  const app = Object.assign(new Emitter(), {
    requestSingleInstanceLock: () => {
      calls.push('requestSingleInstanceLock');
      return opts.lock ?? true;
    },
    quit: () => calls.push('quit'),
    enableSandbox: () => calls.push('enableSandbox'),
    whenReady: () => Promise.resolve(),
    getPath: (name: string) => (name === 'userData' ? opts.userData : os.tmpdir()),
    getVersion: () => '0.1.0-test',
    getAppPath: () => repoRoot,
    isPackaged: opts.isPackaged ?? false,
  });

  class FakeContents extends Emitter {
    mainFrame = { url: 'about:blank' };
    windowOpenHandler?: Fn;
    sent: Array<[string, unknown]> = [];
    drags: Array<{ file: string; icon: unknown }> = [];
    setWindowOpenHandler(fn: Fn) {
      this.windowOpenHandler = fn;
    }
    send(channel: string, payload: unknown) {
      this.sent.push([channel, payload]);
    }
    startDrag(item: { file: string; icon: unknown }) {
      this.drags.push(item);
    }
  }

  class FakeWindow extends Emitter {
    readonly webContents = new FakeContents();
    loaded: string | null = null;
    maximized = false;
    constructor(readonly options: Record<string, any>) {
      super();
      windows.push(this);
      app.emit('web-contents-created', {}, this.webContents);
    }
    loadFile(file: string) {
      this.loaded = file;
      this.webContents.mainFrame.url = pathToFileURL(file).toString();
      return Promise.resolve();
    }
    loadURL(url: string) {
      this.loaded = url;
      this.webContents.mainFrame.url = url;
      return Promise.resolve();
    }
    maximize() {
      this.maximized = true;
    }
    isMaximized() {
      return this.maximized;
    }
    isMinimized() {
      return false;
    }
    isDestroyed() {
      return false;
    }
    getNormalBounds() {
      return { x: 40, y: 50, width: 1234, height: 777 };
    }
    show() {}
    focus() {}
    restore() {}
  }

  const electron = {
    app,
    BrowserWindow: FakeWindow,
    ipcMain: {
      handle: (channel: string, fn: Fn) => ipc.set(channel, fn),
      removeHandler: (channel: string) => ipc.delete(channel),
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (fn: Fn) => (sessionHandlers.permissionRequest = fn),
        setPermissionCheckHandler: (fn: Fn) => (sessionHandlers.permissionCheck = fn),
        webRequest: { onHeadersReceived: (fn: Fn) => (sessionHandlers.headers = fn) },
      },
    },
    Menu: {
      buildFromTemplate: (template: unknown) => ({ template }),
      setApplicationMenu: (menu: (typeof menus)[number]) => menus.push(menu),
    },
    dialog: {
      showErrorBox: (title: string, message: string) => errors.push(`${title}: ${message}`),
      showOpenDialog: () => Promise.resolve({ canceled: false, filePaths: [pickedFolders.shift()] }),
      showSaveDialog: () => Promise.resolve({ canceled: true }),
      showMessageBox: () => Promise.resolve({ response: 0 }),
    },
    nativeImage: { createFromDataURL: (url: string) => ({ url }) },
  };
  return { electron: electron as unknown as ElectronApi, calls, ipc, menus, windows, errors, sessionHandlers, pickedFolders, app };
}

const mainDir = path.join(repoRoot, 'out', 'main');
const started: Shell[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.runtime()?.close();
});

async function start(userData: string, extra: { lock?: boolean; argv?: string[]; isPackaged?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  const rec = recorder({ userData, lock: extra.lock, isPackaged: extra.isPackaged });
  const shell = startShell(rec.electron, { mainDir, argv: extra.argv ?? [], env: extra.env ?? {}, platform: 'linux' });
  started.push(shell);
  await shell.ready;
  return { rec, shell };
}

const newUserData = () => fs.mkdtempSync(path.join(tempWorkspace(), 'userData-'));

describe('Electron shell', () => {
  it('locks the window down: sandbox, isolation, no node, web security, bundled preload', async () => {
    const { rec } = await start(newUserData());
    expect(rec.calls).toContain('requestSingleInstanceLock');
    expect(rec.calls).toContain('enableSandbox');
    expect(rec.windows).toHaveLength(1);
    const prefs = rec.windows[0]!.options.webPreferences;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(prefs.preload).toBe(path.join(repoRoot, 'out', 'preload', 'index.js'));
    expect(rec.windows[0]!.loaded).toBe(path.join(repoRoot, 'out', 'renderer', 'index.html'));
  });

  it('loads ELECTRON_RENDERER_URL only when unpackaged; a packaged app always loads its own page', async () => {
    const env = { ELECTRON_RENDERER_URL: 'http://localhost:5173/' };
    const dev = await start(newUserData(), { env, isPackaged: false });
    expect(dev.rec.windows[0]!.loaded).toBe(env.ELECTRON_RENDERER_URL);
    const packaged = await start(newUserData(), { env, isPackaged: true });
    expect(packaged.rec.windows[0]!.loaded).toBe(path.join(repoRoot, 'out', 'renderer', 'index.html'));
  });

  it('denies window.open, blocks navigation, redirects and webviews', async () => {
    const { rec } = await start(newUserData());
    const contents = rec.windows[0]!.webContents;
    expect(contents.windowOpenHandler?.({ url: 'https://evil.example' })).toEqual({ action: 'deny' });
    for (const event of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      let prevented = false;
      contents.emit(event, { preventDefault: () => (prevented = true) }, 'https://evil.example/');
      expect(prevented, event).toBe(true);
    }
  });

  it('denies every permission and sends a strict CSP with every response', async () => {
    const { rec } = await start(newUserData());
    const h = rec.sessionHandlers;
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
      let granted: boolean | undefined;
      h.permissionRequest!({}, permission, (g: boolean) => (granted = g));
      expect(granted, permission).toBe(false);
      expect(h.permissionCheck!({}, permission)).toBe(false);
    }
    let headers: Record<string, string[]> = {};
    h.headers!(
      { responseHeaders: { 'Content-Type': ['text/html'] } },
      (r: { responseHeaders: Record<string, string[]> }) => (headers = r.responseHeaders),
    );
    const csp = headers['Content-Security-Policy']?.[0];
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-(inline|eval)/);
    expect(csp).toContain("object-src 'none'");
    expect(headers['Content-Type']).toEqual(['text/html']);
    // The same policy is in the page itself (a meta tag), for the file:// load that has no headers.
    const html = fs.readFileSync(path.join(repoRoot, 'src', 'renderer', 'index.html'), 'utf8');
    expect(html).toMatch(/http-equiv="Content-Security-Policy"\s+content="default-src 'self'; script-src 'self';/);
  });

  it('handles every contract over IPC, only for our own main frame showing our page', async () => {
    const { rec } = await start(newUserData());
    for (const c of CHANNELS) expect(rec.ipc.has(ipcChannel(c)), c).toBe(true);
    expect(rec.ipc.size).toBe(CHANNELS.length);
    const invoke = rec.ipc.get(ipcChannel('app.info'))!;
    const frame = rec.windows[0]!.webContents.mainFrame;
    expect(await invoke({ senderFrame: frame }, {})).toMatchObject({ ok: true, value: { mode: 'electron', version: '0.1.0-test' } });
    expect(await invoke({ senderFrame: { url: frame.url } }, {})).toMatchObject({ ok: false, error: { kind: 'Unauthorized' } });
    expect(await invoke({ senderFrame: null }, {})).toMatchObject({ ok: false, error: { kind: 'Unauthorized' } });
    frame.url = 'https://evil.example/';
    expect(await invoke({ senderFrame: frame }, {})).toMatchObject({ ok: false, error: { kind: 'Unauthorized' } });
    frame.url = `${pathToFileURL(path.join(repoRoot, 'out', 'renderer', 'index.html'))}#/writes`;
    expect(await invoke({ senderFrame: frame }, {})).toMatchObject({ ok: true });
    expect(await rec.ipc.get(ipcChannel('gate.list'))!({ senderFrame: frame }, { limit: -1 })).toMatchObject({
      ok: false,
      error: { kind: 'Invalid' },
    });
  });

  it('accepts a renderer path only when the user picked it in a native dialog of this window', async () => {
    const { rec, shell } = await start(newUserData());
    const frame = rec.windows[0]!.webContents.mainFrame;
    const call = (channel: Parameters<typeof ipcChannel>[0], input: unknown) =>
      rec.ipc.get(ipcChannel(channel))!({ senderFrame: frame }, input);
    const picked = tempWorkspace();
    const notPicked = tempWorkspace();
    expect(await call('workspace.open', { dir: picked })).toMatchObject({ ok: false, error: { kind: 'Invalid' } });
    rec.pickedFolders.push(picked);
    expect(await call('dialog.pick', { purpose: 'workspace' })).toEqual({ ok: true, value: { path: picked } });
    expect(await call('workspace.open', { dir: picked })).toMatchObject({ ok: true, value: { dir: picked } });
    expect(await call('workspace.open', { dir: notPicked })).toMatchObject({ ok: false, error: { kind: 'Invalid' } });
    expect(fs.existsSync(path.join(notPicked, '.openclaw-reflection'))).toBe(false);
    // A closed window's picks are forgotten.
    rec.pickedFolders.push(notPicked);
    expect(await call('dialog.pick', { purpose: 'importFolder' })).toEqual({ ok: true, value: { path: notPicked } });
    rec.windows[0]!.emit('closed');
    expect(await shell.runtime()!.registry.dispatch('workspace.open', { dir: notPicked })).toMatchObject({
      ok: false,
      error: { kind: 'Invalid' },
    });
  });

  it('opens a generated demo workspace on first run, then the last workspace; remembers the window', async () => {
    const userData = newUserData();
    const first = await start(userData);
    const demo = path.join(userData, 'demo-workspace');
    const current = first.shell.runtime()!.session.current();
    expect(current).toMatchObject({ dir: demo, isDemo: true });
    expect(current.counts.turns).toBeGreaterThan(100);
    // File > Open Workspace opens the picked folder and pushes the switch to the window.
    const other = tempWorkspace();
    generateDemoWorkspace(other, { sessions: 2 });
    first.rec.pickedFolders.push(other);
    const file = first.rec.menus.at(-1)!.template.find((m) => m.label === 'File')!;
    expect(file.submenu!.map((i) => i.label)).toEqual(expect.arrayContaining(['Open Workspace…', 'Open Recent', 'Backup Database…']));
    file.submenu!.find((i) => i.label === 'Open Workspace…')!.click!();
    await new Promise((r) => setTimeout(r, 50));
    expect(first.shell.runtime()!.session.current().dir).toBe(other);
    const sent = first.rec.windows[0]!.webContents.sent.filter(([ch]) => ch === CHANGE_EVENT_CHANNEL).map(([, e]) => e as { type: string });
    expect(sent.map((e) => e.type)).toContain('workspace');
    const recentMenu = first.rec.menus
      .at(-1)!
      .template.find((m) => m.label === 'File')!
      .submenu!.find((i) => i.label === 'Open Recent')!;
    expect((recentMenu.submenu as Array<{ label: string }>).map((i) => i.label).join('\n')).toContain(demo);
    first.rec.windows[0]!.emit('close');
    await first.shell.runtime()!.close();

    const second = await start(userData);
    expect(second.shell.runtime()!.session.current().dir).toBe(other);
    expect(second.rec.windows[0]!.options).toMatchObject({ x: 40, y: 50, width: 1234, height: 777 });
  });

  it('drags out only files an export wrote', async () => {
    const { rec, shell } = await start(newUserData());
    const session = shell.runtime()!.session;
    const exportDir = path.join(session.dir, '.openclaw-reflection', 'exports', 'x');
    fs.mkdirSync(exportDir, { recursive: true });
    fs.writeFileSync(path.join(exportDir, 'train.jsonl'), '{}\n');
    session.db
      .prepare(
        `INSERT INTO dataset_exports (id, export_name, export_format, sample_types, file_path, files, exported_at) VALUES ('e1', 'x', 'raw', '[]', ?, ?, 1)`,
      )
      .run(exportDir, JSON.stringify([{ name: 'train.jsonl' }]));
    const drag = rec.ipc.get(ipcChannel('exports.startDrag'))!;
    const frame = rec.windows[0]!.webContents.mainFrame;
    expect(await drag({ senderFrame: frame }, { exportId: 'e1', fileName: 'train.jsonl' })).toMatchObject({
      ok: true,
      value: { started: true },
    });
    expect(rec.windows[0]!.webContents.drags).toHaveLength(1);
    expect(rec.windows[0]!.webContents.drags[0]!.file).toBe(fs.realpathSync(path.join(exportDir, 'train.jsonl')));
    expect(rec.windows[0]!.webContents.drags[0]!.icon).toBeTruthy();
    expect(await drag({ senderFrame: frame }, { exportId: 'e1', fileName: '../../reflection.db' })).toMatchObject({
      ok: false,
      error: { kind: 'Invalid' },
    });
    expect(rec.windows[0]!.webContents.drags).toHaveLength(1);
  });

  it('quits when another instance holds the single-instance lock', async () => {
    const { rec, shell } = await start(newUserData(), { lock: false });
    expect(shell.primary).toBe(false);
    expect(rec.calls).toContain('quit');
    expect(rec.windows).toHaveLength(0);
    expect(rec.ipc.size).toBe(0);
  });

  it('a second launch focuses the existing window; --workspace opens that folder', async () => {
    const ws = tempWorkspace();
    generateDemoWorkspace(ws, { sessions: 1 });
    const { rec, shell } = await start(newUserData(), { argv: ['electron', '.', '--workspace', ws] });
    expect(shell.runtime()!.session.current().dir).toBe(ws);
    let focused = false;
    (rec.windows[0] as unknown as { focus: () => void }).focus = () => (focused = true);
    rec.app.emit('second-instance');
    expect(focused).toBe(true);
  });
});
