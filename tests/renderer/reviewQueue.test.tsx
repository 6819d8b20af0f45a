// @vitest-environment happy-dom
// The review queue hook (src/renderer/src/views/review/useReviewQueue.ts) over the real API: a demo
// workspace with collected samples, the real handler registry in this process, and a client that calls
// it as the IPC transport would. Labels are saved at once and move the cursor; undo asks the server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../src/shared/contract';
import type { ApiClient } from '../../src/renderer/src/api';
import { useReviewQueue } from '../../src/renderer/src/views/review/useReviewQueue';
import { createAppRuntime, type AppRuntime } from '../../src/api/runtime';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { collectSamples } from '../../src/core/dataset';
import { generateDemoWorkspace } from '../../src/core/demo';
import { tempWorkspace } from '../helpers/workspace';

let runtime: AppRuntime;
let api: ApiClient;
let stateDir: string;

/** Calls the registry the way the IPC transport does: a Result envelope, unwrapped or thrown. */
function registryClient(rt: AppRuntime): ApiClient {
  return {
    mode: 'electron',
    call: async (channel: string, input?: unknown) => {
      const r = await rt.registry.dispatch(channel, input ?? {});
      if (r.ok) return r.value;
      throw Object.assign(new Error(r.error.message), { kind: r.error.kind });
    },
    runJob: async () => {
      throw new Error('no jobs here');
    },
    onChange: (cb: (e: ChangeEvent) => void) => rt.session.onChange(cb),
    downloadUrl: () => null,
  } as unknown as ApiClient;
}

beforeAll(async () => {
  const ws = tempWorkspace();
  generateDemoWorkspace(ws, { sessions: 6 });
  const { db } = openWorkspaceDatabase(ws);
  await collectSamples({ db, workspaceDir: ws });
  db.close();
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-state-'));
  runtime = createAppRuntime({ mode: 'electron', stateDir, log: { warn: () => undefined } });
  runtime.session.open(ws);
  api = registryClient(runtime);
});

afterAll(async () => {
  await runtime.close();
  fs.rmSync(stateDir, { recursive: true, force: true });
});

afterEach(() => cleanup());

/** The same API over a transport on which one channel's calls arrive 300 ms late. */
function slowOn(slowChannel: string): ApiClient {
  const call = async (channel: string, input?: unknown) => {
    if (channel === slowChannel) await new Promise((r) => setTimeout(r, 300));
    return (api.call as (c: string, i?: unknown) => Promise<unknown>)(channel, input);
  };
  return { ...api, call: call as ApiClient['call'] };
}

const statusOf = async (id: string) => ((await api.call('dataset.get', { id })) as { annotationStatus: string }).annotationStatus;

describe('useReviewQueue over the real API', () => {
  it('opens on the pending queue with its true size and the current sample prefetched', async () => {
    const { result } = renderHook(() => useReviewQueue(api, { status: 'pending' }, 'oldest'));
    await waitFor(() => expect(result.current.detail).toBeDefined());
    const stats = (await api.call('dataset.stats', {})) as { byStatus: Record<string, number | undefined> };
    expect(result.current.rows.length).toBeGreaterThan(2);
    expect(result.current.total).toBe(stats.byStatus.pending);
    expect(result.current.pos).toBe(0);
    expect(result.current.detail?.id).toBe(result.current.rows[0]?.id);
    expect(result.current.rows.every((r) => r.annotationStatus === 'pending')).toBe(true);
  });

  it('approve saves at once and moves on; undo asks the server and brings the sample back', async () => {
    const { result } = renderHook(() => useReviewQueue(api, { status: 'pending' }, 'oldest'));
    await waitFor(() => expect(result.current.detail).toBeDefined());
    const first = result.current.rows[0]!.id;
    act(() => result.current.act('approve'));
    expect(result.current.pos).toBe(1);
    await waitFor(() => expect(result.current.undoable).toBe(1));
    expect(await statusOf(first)).toBe('approved');

    await act(async () => {
      await result.current.undo();
    });
    expect(await statusOf(first)).toBe('pending');
    await waitFor(() => expect(result.current.current?.id).toBe(first));
    expect(result.current.error).toBeNull();
  });

  it('a save the server refuses puts the label back and says which action failed', async () => {
    const { result } = renderHook(() => useReviewQueue(api, { status: 'pending' }, 'oldest'));
    await waitFor(() => expect(result.current.detail).toBeDefined());
    const first = result.current.rows[0]!.id;
    // A sample's content is a JSON object: the server refuses a bare string.
    let saved: boolean | undefined;
    await act(async () => {
      saved = await result.current.edit('not a sample');
    });
    expect(saved).toBe(false);
    expect(result.current.error?.action).toBe(`Saving the edit of sample ${first}`);
    expect((result.current.error?.error as { kind?: string }).kind).toBe('Invalid');
    expect(await statusOf(first)).toBe('pending');
  });

  it('a hold that reaches the server late never outlives the label, and holds follow the cursor', async () => {
    // Holds travel slowly: a hold asked for before a label arrives after it.
    const late = slowOn('review.reserve');
    const held = () =>
      (runtime.session.db.prepare('SELECT sample_id AS id FROM review_reservations ORDER BY sample_id').all() as { id: string }[]).map(
        (r) => r.id,
      );
    const { result, unmount } = renderHook(() => useReviewQueue(late, { status: 'pending' }, 'oldest'));
    await waitFor(() => expect(result.current.detail).toBeDefined());
    const ids = result.current.rows.slice(0, 5).map((r) => r.id);
    act(() => result.current.act('approve'));
    await waitFor(() => expect(result.current.undoable).toBe(1));
    await waitFor(() => expect(held()).toEqual(ids.slice(1, 4).sort()));
    // moving on without a label gives the sample passed back; leaving gives back the rest
    act(() => result.current.move(1));
    await waitFor(() => expect(held()).toEqual(ids.slice(2, 5).sort()));
    unmount();
    await waitFor(() => expect(held()).toEqual([]));
    await act(async () => {
      await api.call('dataset.undo', {});
    });
  });

  it('an undo pressed while the label is still on its way takes back that label', async () => {
    // Labels travel slowly: the undo is asked for before the label has arrived.
    const slow = slowOn('dataset.review');
    const { result } = renderHook(() => useReviewQueue(slow, { status: 'pending' }, 'oldest'));
    await waitFor(() => expect(result.current.detail).toBeDefined());
    const first = result.current.rows[0]!.id;
    act(() => result.current.act('reject'));
    await act(async () => {
      await result.current.undo();
    });
    expect(result.current.error).toBeNull();
    expect(await statusOf(first)).toBe('pending');
    await waitFor(() => expect(result.current.current?.id).toBe(first));
  });
});
