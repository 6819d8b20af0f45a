// The one workbench window: restored to its last bounds, which it saves again when closed.
import type * as Electron from 'electron';
import { secureWebPreferences } from './windowSecurity';
import { loadWindowState, saveWindowState, type WindowState } from './windowState';

export interface MainWindowOptions {
  BrowserWindow: typeof Electron.BrowserWindow;
  stateDir: string;
  preloadFile: string;
  /** Called once the window is gone. */
  onClosed(): void;
}

export function createMainWindow(opts: MainWindowOptions): Electron.BrowserWindow {
  const state = loadWindowState(opts.stateDir);
  const win = new opts.BrowserWindow({
    x: state.x,
    y: state.y,
    width: state.width,
    height: state.height,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Reflection Workbench',
    webPreferences: secureWebPreferences(opts.preloadFile),
  });
  if (state.maximized) win.maximize();
  win.on('close', () => {
    if (win.isDestroyed()) return;
    const b = win.getNormalBounds();
    const next: WindowState = { x: b.x, y: b.y, width: b.width, height: b.height, maximized: win.isMaximized() };
    saveWindowState(opts.stateDir, next);
  });
  win.on('closed', opts.onClosed);
  win.once('ready-to-show', () => {
    if (!win.isDestroyed()) win.show();
  });
  return win;
}
