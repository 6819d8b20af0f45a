// Exposes the typed window.api to the renderer. Bundled (the window is sandboxed): no node imports.
// Only channels of the contract can be invoked; the raw ipcRenderer never leaves this file.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { CHANGE_EVENT_CHANNEL, CHANNELS, ipcChannel, type ApiTransport, type ChangeEvent } from '../shared/contract';
import type { Result } from '../shared/errors';

const allowed = new Set<string>(CHANNELS);

const api: ApiTransport = {
  invoke(channel: string, input: unknown): Promise<Result<unknown>> {
    if (!allowed.has(channel)) {
      return Promise.resolve({ ok: false, error: { kind: 'Invalid', message: `unknown channel ${String(channel)}` } });
    }
    return ipcRenderer.invoke(ipcChannel(channel as (typeof CHANNELS)[number]), input) as Promise<Result<unknown>>;
  },
  onChange(cb: (event: ChangeEvent) => void): () => void {
    // The listener gets only the payload, never the IPC event (which carries the sender).
    const listener = (_e: IpcRendererEvent, payload: ChangeEvent) => cb(payload);
    ipcRenderer.on(CHANGE_EVENT_CHANNEL, listener);
    return () => {
      ipcRenderer.removeListener(CHANGE_EVENT_CHANNEL, listener);
    };
  },
};

contextBridge.exposeInMainWorld('api', api);
