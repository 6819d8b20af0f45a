// @vitest-environment happy-dom
// The renderer's general data hooks (src/renderer/src/lib/useAsync.ts): useAsync learns which areas its
// function reads from the channels it calls, so a burst of change events elsewhere (a dry run, a
// collection) no longer reloads every view; drafts in useStoredState survive a remount; useAction
// reports pending and failure.
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { useApi } from '../../src/renderer/src/lib/api';
import { useAction, useAsync, useStoredState } from '../../src/renderer/src/lib/useAsync';
import { mount } from './harness';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const settle = () => new Promise((r) => setTimeout(r, 50));

/** A view whose function reads the writes list and its stats: two channels, both in area 'writes'. */
function WritesPanel({ page = 1, live }: { page?: number; live?: boolean }) {
  const api = useApi();
  const { data } = useAsync(
    async () => {
      const list = (await api.call('guardian.list', {} as never)) as unknown as { n: number };
      await api.call('guardian.stats', {} as never);
      return `page ${page}, list #${list.n}`;
    },
    [page],
    { live },
  );
  return <p data-testid="writes">{data ?? 'loading'}</p>;
}

describe('useAsync', () => {
  it('reloads on a change to an area its function read, and not on a burst of changes elsewhere', async () => {
    const t = mount(<WritesPanel />);
    await waitFor(() => expect(screen.getByTestId('writes').textContent).toBe('page 1, list #1'));
    // 50 sample changes (say, a collect) must not touch a view that reads writes only.
    for (let i = 0; i < 50; i++) t.emit({ areas: ['samples'] });
    await settle();
    expect(t.count('guardian.list')).toBe(1);
    t.emit({ areas: ['writes'] });
    await waitFor(() => expect(screen.getByTestId('writes').textContent).toBe('page 1, list #2'));
    expect(t.count('guardian.stats')).toBe(2);
  });

  it('re-runs when its deps change, keeping the previous data on screen until the new data arrives', async () => {
    function Pager() {
      const [page, setPage] = useState(1);
      return (
        <>
          <button onClick={() => setPage((p) => p + 1)}>next</button>
          <WritesPanel page={page} />
        </>
      );
    }
    const t = mount(<Pager />);
    await waitFor(() => expect(screen.getByTestId('writes').textContent).toBe('page 1, list #1'));
    act(() => screen.getByText('next').click());
    expect(screen.getByTestId('writes').textContent).toBe('page 1, list #1');
    await waitFor(() => expect(screen.getByTestId('writes').textContent).toBe('page 2, list #2'));
    expect(t.count('guardian.list')).toBe(2);
  });

  it('live: false loads once and ignores change events', async () => {
    const t = mount(<WritesPanel live={false} />);
    await waitFor(() => expect(screen.getByTestId('writes').textContent).toBe('page 1, list #1'));
    t.emit({ areas: ['writes'] });
    t.emit({});
    await settle();
    expect(t.count('guardian.list')).toBe(1);
  });
});

describe('useStoredState', () => {
  function Draft({ storageKey }: { storageKey: string }) {
    const [text, setText, clear] = useStoredState(storageKey, '');
    return (
      <>
        <input aria-label="draft" value={text} onChange={(e) => setText(e.target.value)} />
        <button onClick={clear}>clear</button>
      </>
    );
  }

  it('keeps a draft across a remount, per key, and clear removes it', () => {
    const first = render(<Draft storageKey="draft:a" />);
    const input = () => screen.getByLabelText('draft') as HTMLInputElement;
    fireEvent.change(input(), { target: { value: 'half a reason' } });
    expect(JSON.parse(localStorage.getItem('draft:a') ?? 'null')).toBe('half a reason');
    first.unmount();
    const again = render(<Draft storageKey="draft:a" />);
    expect(input().value).toBe('half a reason');
    again.rerender(<Draft storageKey="draft:b" />);
    expect(input().value).toBe('');
    again.rerender(<Draft storageKey="draft:a" />);
    expect(input().value).toBe('half a reason');
    act(() => screen.getByText('clear').click());
    expect(input().value).toBe('');
    expect(localStorage.getItem('draft:a')).toBeNull();
  });
});

describe('useAction', () => {
  it('is pending while running and keeps the error of a failed run', async () => {
    let finish!: () => void;
    function Saver({ fail }: { fail: boolean }) {
      const save = useAction(async () => {
        await new Promise<void>((r) => (finish = r));
        if (fail) throw new Error('disk full');
        return 'saved';
      });
      return (
        <>
          <button onClick={() => void save.run()}>save</button>
          <span data-testid="state">{save.pending ? 'pending' : save.error ? (save.error as Error).message : 'idle'}</span>
        </>
      );
    }
    render(<Saver fail />);
    act(() => screen.getByText('save').click());
    expect(screen.getByTestId('state').textContent).toBe('pending');
    await act(async () => finish());
    expect(screen.getByTestId('state').textContent).toBe('disk full');
  });
});
