// The view state lives in the URL hash (#/decisions?type=NO_WRITE&q=...), so any view a curator
// filtered or opened can be bookmarked, reloaded and returned to with Back.
import { useCallback, useSyncExternalStore } from 'react';

export const VIEWS = [
  'sessions',
  'decisions',
  'writes',
  'corrections',
  'review',
  'datasets',
  'search',
  'stats',
  'health',
  'privacy',
  'settings',
] as const;
export type ViewName = (typeof VIEWS)[number];

export interface Route {
  view: ViewName;
  params: Record<string, string>;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = raw.split('?', 2);
  const view = (VIEWS as readonly string[]).includes(path) ? (path as ViewName) : 'sessions';
  const params: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(query)) params[k] = v;
  return { view, params };
}

export function formatHash(route: Route): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(route.params)) if (v !== '' && v != null) q.set(k, v);
  const s = q.toString();
  return `#/${route.view}${s ? `?${s}` : ''}`;
}

function subscribe(cb: () => void): () => void {
  window.addEventListener('hashchange', cb);
  return () => window.removeEventListener('hashchange', cb);
}
const snapshot = () => window.location.hash;

export function navigate(route: Route, replace = false): void {
  const hash = formatHash(route);
  if (hash === window.location.hash) return;
  if (replace) {
    // replaceState fires no hashchange: notify subscribers ourselves.
    history.replaceState(history.state, '', `${location.pathname}${location.search}${hash}`);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    window.location.hash = hash;
  }
}

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, snapshot);
  return parseHash(hash);
}

/** Read and update this view's params; filter edits replace history, opening things pushes. */
export function useViewParams(
  view: ViewName,
): [Record<string, string>, (patch: Record<string, string | undefined>, push?: boolean) => void] {
  const route = useRoute();
  const params = route.view === view ? route.params : {};
  const update = useCallback(
    (patch: Record<string, string | undefined>, push = false) => {
      const current = parseHash(window.location.hash);
      const next = { ...(current.view === view ? current.params : {}) };
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined || v === '') delete next[k];
        else next[k] = v;
      }
      navigate({ view, params: next }, !push);
    },
    [view],
  );
  return [params, update];
}

/** A link target; the page's ?token= query stays because only the hash changes. */
export function hrefFor(view: ViewName, params: Record<string, string> = {}): string {
  return formatHash({ view, params });
}
