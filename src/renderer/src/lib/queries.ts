// Keyed API queries (TanStack Query) that reload only when an area they read changed. Main pushes a
// 'data' event naming the changed areas (src/shared/contract/changes.ts); an event without areas comes
// from another process (the CLI, the plugin) and may have changed anything. Only queries on screen
// refetch; the others are marked stale and refetch when a view shows them again. No timer polls.
import { QueryClient, useQuery, type Query } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import {
  DATA_AREAS,
  SOURCE_CHANGES,
  readAreas,
  type Channel,
  type ChangeEvent,
  type DataArea,
  type OutputOf,
} from '../../../shared/contract';
import type { ApiClient, ArgsOf } from '../api';
import { useApi } from './api';

export interface QueryMeta extends Record<string, unknown> {
  /** Areas whose change makes this query stale. Empty: never reloaded by events. */
  areas: readonly DataArea[];
  /** Aggregates (counts over a million rows) refetch at most this often. */
  throttleMs?: number;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Freshness comes from change events, never from time, focus or reconnects.
        staleTime: Infinity,
        refetchOnWindowFocus: false,
        refetchOnReconnect: false,
        retry: false,
      },
    },
  });
}

/** The areas a 'data' event says changed (all of them when it does not say). */
export function areasOf(event: Extract<ChangeEvent, { type: 'data' }>): readonly DataArea[] {
  if (event.areas) return event.areas;
  if (event.source) return SOURCE_CHANGES[event.source];
  return DATA_AREAS;
}

type AreaListener = (areas: readonly DataArea[]) => void;
const listeners = new Set<AreaListener>();

/** Subscribe to changes of some areas (lists that page by hand, flows holding their own state). */
export function useAreaChanges(areas: readonly DataArea[], onChange: () => void): void {
  const cb = useRef(onChange);
  cb.current = onChange;
  const key = areas.join(',');
  useEffect(() => {
    const mine = new Set(key.split(','));
    const l: AreaListener = (changed) => {
      if (changed.some((a) => mine.has(a))) cb.current();
    };
    listeners.add(l);
    return () => void listeners.delete(l);
  }, [key]);
}

const metaOf = (q: Query): QueryMeta | undefined => q.meta as QueryMeta | undefined;

/** Marks the queries reading `areas` stale; the ones on screen refetch (throttled ones at most every throttleMs). */
export function invalidateAreas(client: QueryClient, areas: readonly DataArea[], timers: Map<string, ReturnType<typeof setTimeout>>): void {
  const changed = new Set(areas);
  for (const l of [...listeners]) l(areas);
  for (const q of client.getQueryCache().getAll()) {
    const meta = metaOf(q);
    if (!meta || !meta.areas.some((a) => changed.has(a))) continue;
    const throttle = meta.throttleMs ?? 0;
    const wait = q.state.dataUpdatedAt + throttle - Date.now();
    if (throttle <= 0 || wait <= 0) {
      void client.invalidateQueries({ queryKey: q.queryKey, exact: true });
    } else if (!timers.has(q.queryHash)) {
      timers.set(
        q.queryHash,
        setTimeout(() => {
          timers.delete(q.queryHash);
          void client.invalidateQueries({ queryKey: q.queryKey, exact: true });
        }, wait),
      );
    }
  }
}

// Which channels a useAsync function reads is learnt by watching its calls: while a query runs, every
// API call is noted by all queries running at that moment. Overlapping queries may note each other's
// calls; that only makes them reload a little more often, never miss a change of their own.
const runningQueries = new Set<Set<string>>();

/** The client views get (main.tsx): the same client, with each call noted by the running queries. */
export function trackingClient(client: ApiClient): ApiClient {
  const call = ((channel: Channel, ...args: unknown[]) => {
    for (const seen of runningQueries) seen.add(channel);
    return (client.call as (c: Channel, ...a: unknown[]) => Promise<unknown>)(channel, ...args);
  }) as ApiClient['call'];
  return new Proxy(client, {
    get(target, prop) {
      if (prop === 'call') return call;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Runs fn and says which channels were called while it ran. */
export async function withCallTracking<T>(fn: () => Promise<T>): Promise<{ value: T; channels: Set<string> }> {
  const channels = new Set<string>();
  runningQueries.add(channels);
  try {
    return { value: await fn(), channels };
  } finally {
    runningQueries.delete(channels);
  }
}

/** The areas some channels read; no channel seen: every area (the function reads something else). */
export function areasReadBy(channels: Iterable<string>): DataArea[] {
  const areas = new Set<DataArea>();
  let any = false;
  for (const c of channels) {
    any = true;
    for (const a of readAreas(c)) areas.add(a);
  }
  return any ? [...areas] : [...DATA_AREAS];
}

export interface ApiQueryOptions {
  skip?: boolean;
  throttleMs?: number;
  /** false: loaded once, never reloaded by change events (a snapshot the curator is working on). */
  live?: boolean;
}

/** One API call as a keyed query: `useApiQuery('guardian.show', { id })`. */
export function useApiQuery<C extends Channel>(channel: C, input: ArgsOf<C>[0], opts: ApiQueryOptions = {}) {
  const api = useApi();
  const meta: QueryMeta = { areas: opts.live === false ? [] : readAreas(channel), throttleMs: opts.throttleMs };
  return useQuery({
    queryKey: [channel, input ?? {}],
    queryFn: () => (api.call as (c: C, i: unknown) => Promise<OutputOf<C>>)(channel, input ?? {}),
    enabled: !opts.skip,
    meta,
  });
}
