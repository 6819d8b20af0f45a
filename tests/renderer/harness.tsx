// Mounts renderer hooks the way main.tsx and App.tsx do (the tracking API client in ApiContext, one
// QueryClient, one change-event subscription), over a recording stand-in for the IPC/HTTP transport:
// the layer under test is everything above the transport. React, TanStack Query and the change-area
// tables are the real ones.
import { act, render } from '@testing-library/react';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import type { ChangeEvent } from '../../src/shared/contract';
import type { ApiClient } from '../../src/renderer/src/api';
import { ApiContext } from '../../src/renderer/src/lib/api';
import { areasOf, createQueryClient, invalidateAreas, trackingClient } from '../../src/renderer/src/lib/queries';

export type DataEvent = Extract<ChangeEvent, { type: 'data' }>;

/** A transport that answers every channel with its name and a call counter, and lets the test push events. */
export function recordingTransport() {
  const calls: string[] = [];
  const listeners = new Set<(e: ChangeEvent) => void>();
  const client = {
    mode: 'web',
    call: async (channel: string) => {
      calls.push(channel);
      return { channel, n: calls.filter((c) => c === channel).length };
    },
    runJob: async () => {
      throw new Error('no jobs in these tests');
    },
    onChange: (cb: (e: ChangeEvent) => void) => {
      listeners.add(cb);
      return () => void listeners.delete(cb);
    },
    downloadUrl: () => null,
  } as unknown as ApiClient;
  let version = 0;
  const emit = (change: Partial<DataEvent>) => {
    const event = { type: 'data', version: ++version, at: Date.now(), ...change } as DataEvent;
    act(() => {
      for (const l of [...listeners]) l(event);
    });
  };
  const count = (channel: string) => calls.filter((c) => c === channel).length;
  return { client, calls, emit, count };
}

/** What App.tsx does for the window: one subscription that invalidates the areas each event names. */
function ChangeSubscription({ client, api }: { client: QueryClient; api: ApiClient }) {
  useEffect(() => {
    const timers = new Map<string, ReturnType<typeof setTimeout>>();
    const off = api.onChange((e) => {
      if (e.type === 'data') invalidateAreas(client, areasOf(e), timers);
    });
    return () => {
      off();
      for (const t of timers.values()) clearTimeout(t);
    };
  }, [api, client]);
  return null;
}

export function mount(ui: ReactNode) {
  const transport = recordingTransport();
  const client = createQueryClient();
  const api = trackingClient(transport.client);
  const view = render(
    <ApiContext.Provider value={api}>
      <QueryClientProvider client={client}>
        <ChangeSubscription client={client} api={api} />
        {ui}
      </QueryClientProvider>
    </ApiContext.Provider>,
  );
  return { ...transport, api, client, view };
}
