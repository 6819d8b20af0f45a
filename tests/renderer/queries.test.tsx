// @vitest-environment happy-dom
// The renderer's query layer (src/renderer/src/lib/queries.ts) under a DOM: keyed TanStack queries load
// once, stay quiet while idle, and reload only when a change event names an area they read.
import { act, cleanup, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DATA_AREAS, type DataArea } from '../../src/shared/contract/changes';
import {
  areasOf,
  areasReadBy,
  createQueryClient,
  invalidateAreas,
  trackingClient,
  useApiQuery,
  useAreaChanges,
  withCallTracking,
} from '../../src/renderer/src/lib/queries';
import { mount, recordingTransport, type DataEvent } from './harness';

/** Shows one channel's answer; `opts` as useApiQuery takes them. */
function Reader({
  channel,
  live,
  throttleMs,
}: {
  channel: 'guardian.list' | 'dataset.exports' | 'settings.get';
  live?: boolean;
  throttleMs?: number;
}) {
  const q = useApiQuery(channel, {} as never, { live, throttleMs });
  const data = q.data as { n: number } | undefined;
  return <p data-testid={channel}>{data ? `${channel} #${data.n}` : 'loading'}</p>;
}

const shown = (channel: string) => screen.getByTestId(channel).textContent;

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('keyed queries', () => {
  it('load once and make no further calls while the view is idle for 5 s', async () => {
    const t = mount(
      <>
        <Reader channel="guardian.list" />
        <Reader channel="dataset.exports" />
      </>,
    );
    await waitFor(() => expect(shown('guardian.list')).toBe('guardian.list #1'));
    await waitFor(() => expect(shown('dataset.exports')).toBe('dataset.exports #1'));
    vi.useFakeTimers();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5_000);
    });
    expect(t.calls).toEqual(['guardian.list', 'dataset.exports']);
  });

  it('reload only the queries that read an area the change event names', async () => {
    const t = mount(
      <>
        <Reader channel="guardian.list" />
        <Reader channel="dataset.exports" />
      </>,
    );
    await waitFor(() => expect(shown('dataset.exports')).toBe('dataset.exports #1'));
    t.emit({ areas: ['writes'] });
    await waitFor(() => expect(shown('guardian.list')).toBe('guardian.list #2'));
    t.emit({ areas: ['samples'] });
    await new Promise((r) => setTimeout(r, 50));
    expect(t.count('guardian.list')).toBe(2);
    expect(t.count('dataset.exports')).toBe(1);
    expect(shown('dataset.exports')).toBe('dataset.exports #1');
  });

  it('an event without areas (another process wrote) reloads everything on screen; a named source only its areas', async () => {
    const t = mount(
      <>
        <Reader channel="guardian.list" />
        <Reader channel="dataset.exports" />
      </>,
    );
    await waitFor(() => expect(shown('dataset.exports')).toBe('dataset.exports #1'));
    t.emit({});
    await waitFor(() => expect(shown('guardian.list')).toBe('guardian.list #2'));
    await waitFor(() => expect(shown('dataset.exports')).toBe('dataset.exports #2'));
    t.emit({ source: 'archive' }); // the archive schedule writes exports only
    await waitFor(() => expect(shown('dataset.exports')).toBe('dataset.exports #3'));
    expect(t.count('guardian.list')).toBe(2);
  });

  it('a query not on screen is only marked stale, and reloads when a view shows it again', async () => {
    function Toggle() {
      const [on, setOn] = useState(true);
      return (
        <>
          <button onClick={() => setOn((v) => !v)}>toggle</button>
          {on && <Reader channel="guardian.list" />}
        </>
      );
    }
    const t = mount(<Toggle />);
    await waitFor(() => expect(shown('guardian.list')).toBe('guardian.list #1'));
    act(() => screen.getByText('toggle').click());
    t.emit({ areas: ['writes'] });
    await new Promise((r) => setTimeout(r, 50));
    expect(t.count('guardian.list')).toBe(1);
    act(() => screen.getByText('toggle').click());
    await waitFor(() => expect(shown('guardian.list')).toBe('guardian.list #2'));
  });

  it('a snapshot query (live: false) is never reloaded by events', async () => {
    const t = mount(<Reader channel="settings.get" live={false} />);
    await waitFor(() => expect(shown('settings.get')).toBe('settings.get #1'));
    t.emit({ areas: ['settings'] });
    t.emit({});
    await new Promise((r) => setTimeout(r, 50));
    expect(t.count('settings.get')).toBe(1);
  });

  it('a throttled aggregate reloads at most once per throttle window, after a burst of events', async () => {
    const t = mount(<Reader channel="guardian.list" throttleMs={300} />);
    await waitFor(() => expect(shown('guardian.list')).toBe('guardian.list #1'));
    for (let i = 0; i < 5; i++) t.emit({ areas: ['writes'] });
    await new Promise((r) => setTimeout(r, 100));
    expect(t.count('guardian.list')).toBe(1);
    await waitFor(() => expect(shown('guardian.list')).toBe('guardian.list #2'), { timeout: 2_000 });
    await new Promise((r) => setTimeout(r, 400));
    expect(t.count('guardian.list')).toBe(2);
  });
});

describe('area subscriptions and call tracking', () => {
  it('useAreaChanges calls back only for the areas it names', async () => {
    const seen: string[] = [];
    function Watcher() {
      useAreaChanges(['exports', 'settings'], () => seen.push('changed'));
      return null;
    }
    const t = mount(<Watcher />);
    t.emit({ areas: ['writes', 'samples'] });
    expect(seen).toEqual([]);
    t.emit({ areas: ['settings'] });
    t.emit({ source: 'archive' });
    expect(seen).toEqual(['changed', 'changed']);
    t.view.unmount();
    invalidateAreas(createQueryClient(), ['exports'], new Map());
    expect(seen).toHaveLength(2);
  });

  it('trackingClient notes the channels a function calls, and those channels give the areas it reads', async () => {
    const t = recordingTransport();
    const api = trackingClient(t.client);
    expect(api.mode).toBe('web');
    const { value, channels } = await withCallTracking(async () => {
      await api.call('guardian.list', {} as never);
      return api.call('dataset.exports', {} as never);
    });
    expect((value as unknown as { channel: string }).channel).toBe('dataset.exports');
    expect([...channels].sort()).toEqual(['dataset.exports', 'guardian.list']);
    expect(areasReadBy(channels).sort()).toEqual(['exports', 'writes']);
    // A function that calls nothing we know of may read anything.
    expect(areasReadBy([])).toEqual([...DATA_AREAS]);
    // Calls made after the tracked function finished are not noted.
    await api.call('settings.get', {} as never);
    expect(channels.has('settings.get')).toBe(false);
  });

  it('areasOf: named areas, a source, or every area', () => {
    const ev = (change: Partial<DataEvent>) => ({ type: 'data', version: 1, at: 0, ...change }) as DataEvent;
    expect(areasOf(ev({ areas: ['samples'] as DataArea[] }))).toEqual(['samples']);
    expect(areasOf(ev({ source: 'retention' }))).toEqual(['sessions', 'decisions', 'writes', 'samples']);
    expect(areasOf(ev({}))).toEqual(DATA_AREAS);
  });
});
