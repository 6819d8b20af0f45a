// The built preload bundle, run as a sandboxed preload would run it: its only import is 'electron'
// (here a recorder), it exposes exactly { invoke, onChange } as window.api, and it refuses channels
// that are not in the contract without touching IPC.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_EVENT_CHANNEL, CHANNELS, ipcChannel } from '../../src/shared/contract';
import { repoRoot } from '../helpers/workspace';

type Fn = (...args: any[]) => any;

describe('preload bundle', () => {
  const exposed = new Map<string, Record<'invoke' | 'onChange', Fn>>();
  const invoked: Array<[string, unknown]> = [];
  const listeners = new Map<string, Fn[]>();
  const required: string[] = [];

  beforeAll(() => {
    const file = path.join(repoRoot, 'out', 'preload', 'index.js');
    if (!fs.existsSync(file)) throw new Error('out/preload is not built: run `npx electron-vite build` (npm test does it first)');
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, api: Record<'invoke' | 'onChange', Fn>) => exposed.set(key, api) },
      ipcRenderer: {
        invoke: (channel: string, input: unknown) => {
          invoked.push([channel, input]);
          return Promise.resolve({ ok: true, value: 'from-main' });
        },
        on: (channel: string, fn: Fn) => listeners.set(channel, [...(listeners.get(channel) ?? []), fn]),
        removeListener: (channel: string, fn: Fn) =>
          listeners.set(
            channel,
            (listeners.get(channel) ?? []).filter((f) => f !== fn),
          ),
      },
    };
    const sandboxRequire = (name: string) => {
      required.push(name);
      if (name === 'electron') return electron;
      throw new Error(`a sandboxed preload cannot require ${name}`);
    };
    const module = { exports: {} };
    vm.runInNewContext(
      fs.readFileSync(file, 'utf8'),
      { require: sandboxRequire, module, exports: module.exports, console },
      { filename: file },
    );
  });

  it('requires nothing but electron', () => {
    expect([...new Set(required)]).toEqual(['electron']);
  });

  it('exposes only invoke and onChange as window.api, never ipcRenderer', () => {
    expect([...exposed.keys()]).toEqual(['api']);
    expect(Object.keys(exposed.get('api')!).sort()).toEqual(['invoke', 'onChange']);
  });

  it('forwards contract channels to their IPC channel and refuses others without touching IPC', async () => {
    const api = exposed.get('api')!;
    for (const c of CHANNELS) await api.invoke(c, { probe: c });
    expect(invoked.map(([ch]) => ch)).toEqual(CHANNELS.map(ipcChannel));
    invoked.length = 0;
    for (const bad of ['ELECTRON_BROWSER_WINDOW_ALERT', 'reflection:app.info', '__proto__', 'constructor', 'app.info ', 42]) {
      const r = await api.invoke(bad, {});
      expect(r, String(bad)).toMatchObject({ ok: false, error: { kind: 'Invalid' } });
    }
    expect(invoked).toEqual([]);
  });

  it('delivers change events without the IPC event object, and unsubscribes', () => {
    const api = exposed.get('api')!;
    const got: unknown[] = [];
    const off = api.onChange((e: unknown) => got.push(e));
    const fire = (payload: unknown) => (listeners.get(CHANGE_EVENT_CHANNEL) ?? []).forEach((fn) => fn({ sender: 'secret' }, payload));
    fire({ type: 'data', version: 1, at: 0 });
    off();
    fire({ type: 'data', version: 2, at: 0 });
    expect(got).toEqual([{ type: 'data', version: 1, at: 0 }]);
  });
});
