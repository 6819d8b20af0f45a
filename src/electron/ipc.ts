// Electron transport: ipcMain.handle for every contract channel. Only our own window's main frame,
// showing our own page, may call; anything else (a subframe, a navigated page) gets Unauthorized.
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { CHANNELS, ipcChannel } from '../shared/contract';
import type { Result } from '../shared/errors';
import type { Registry } from '../api/registry';

export interface TrustedSender {
  /** The main frame of our window (webContents.mainFrame), or null when there is no window. */
  mainFrame(): unknown;
  /** Is this URL one of our pages (the built index.html, or the dev server in development)? */
  isAppUrl(url: string): boolean;
}

export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'senderFrame'>, trusted: TrustedSender): boolean {
  const frame = event.senderFrame;
  if (!frame) return false;
  if (frame !== trusted.mainFrame()) return false;
  return trusted.isAppUrl(frame.url);
}

export function registerIpcHandlers(
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>,
  registry: Registry,
  trusted: TrustedSender,
): () => void {
  for (const channel of CHANNELS) {
    ipcMain.handle(ipcChannel(channel), (event, input: unknown): Promise<Result<unknown>> | Result<unknown> => {
      if (!isTrustedSender(event, trusted)) {
        return { ok: false, error: { kind: 'Unauthorized', message: 'IPC from an untrusted frame' } };
      }
      return registry.dispatch(channel, input);
    });
  }
  return () => {
    for (const channel of CHANNELS) ipcMain.removeHandler(ipcChannel(channel));
  };
}

/** Matches our built page (file URL of index.html, any hash/query) or the dev server origin. */
export function appUrlMatcher(indexFileUrl: string, devServerUrl?: string): (url: string) => boolean {
  const devOrigin = devServerUrl ? new URL(devServerUrl).origin : null;
  return (url: string) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    if (devOrigin && parsed.origin === devOrigin) return true;
    if (parsed.protocol !== 'file:') return false;
    parsed.hash = '';
    parsed.search = '';
    return parsed.toString() === new URL(indexFileUrl).toString();
  };
}
