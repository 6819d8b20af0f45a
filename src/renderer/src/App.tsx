import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import type { WorkspaceInfo } from '../../shared/contract';
import { ErrorMessage } from './components/ErrorMessage';
import { ProgressBar } from './components/ProgressBar';
import { useApi } from './lib/api';
import { formatCount } from './lib/format';
import { useJobs } from './lib/jobs';
import { isTypingTarget } from './lib/keys';
import { hrefFor, navigate, useRoute, type ViewName } from './lib/route';
import { useQueryClient } from '@tanstack/react-query';
import { DATA_AREAS } from '../../shared/contract';
import { areasOf, invalidateAreas, useApiQuery } from './lib/queries';
import { CorrectionsView } from './views/CorrectionsView';
import { DatasetsView } from './views/DatasetsView';
import { DecisionsView } from './views/DecisionsView';
import { HealthView } from './views/HealthView';
import { PrivacyView } from './views/PrivacyView';
import { ReviewView } from './views/ReviewView';
import { SearchView } from './views/SearchView';
import { SessionsView } from './views/SessionsView';
import { SettingsView } from './views/SettingsView';
import { WorkspaceSwitcher } from './views/WorkspaceSwitcher';
import { WritesView } from './views/WritesView';
import { CuratorNamePrompt } from './views/review/CuratorNamePrompt';

// chart.js loads with the Stats view only.
const StatsView = lazy(() => import('./views/StatsView').then((m) => ({ default: m.StatsView })));

const NAV: { view: ViewName; label: string }[] = [
  { view: 'sessions', label: 'Sessions' },
  { view: 'decisions', label: 'Decisions' },
  { view: 'writes', label: 'Writes' },
  { view: 'review', label: 'Review' },
  { view: 'datasets', label: 'Datasets' },
  { view: 'search', label: 'Search' },
  { view: 'stats', label: 'Stats' },
  { view: 'health', label: 'Memory health' },
  { view: 'privacy', label: 'Privacy & retention' },
  { view: 'settings', label: 'Settings' },
];

function CurrentView({ view }: { view: ViewName }): ReactNode {
  switch (view) {
    case 'sessions':
      return <SessionsView />;
    case 'decisions':
      return <DecisionsView />;
    case 'writes':
      return <WritesView />;
    case 'corrections':
      return <CorrectionsView />;
    case 'review':
      return <ReviewView />;
    case 'datasets':
      return <DatasetsView />;
    case 'search':
      return <SearchView />;
    case 'health':
      return <HealthView />;
    case 'privacy':
      return <PrivacyView />;
    case 'settings':
      return <SettingsView />;
    case 'stats':
      return (
        <Suspense fallback={<div className="pad muted">Loading charts…</div>}>
          <StatsView />
        </Suspense>
      );
  }
}

export function App() {
  const api = useApi();
  const route = useRoute();
  const queryClient = useQueryClient();
  const [pulse, setPulse] = useState(0);
  const [connected, setConnected] = useState(true);
  const [workspace, setWorkspace] = useState<WorkspaceInfo | undefined>();

  // One subscription for the window: each change event marks stale the queries that read a changed area.
  useEffect(() => {
    const timers = new Map<string, ReturnType<typeof setTimeout>>();
    const off = api.onChange((e) => {
      if (e.type === 'data') {
        invalidateAreas(queryClient, areasOf(e), timers);
        setPulse((p) => p + 1);
        setConnected(true);
      } else if (e.type === 'workspace') {
        setWorkspace(e.workspace);
        invalidateAreas(queryClient, DATA_AREAS, timers);
      }
    });
    return () => {
      off();
      for (const t of timers.values()) clearTimeout(t);
    };
  }, [api, queryClient]);

  // The status-bar counts follow the same events (CLI, import and collect included); counting a
  // million rows is not free, so they refetch at most every 2 s.
  const ws = useApiQuery('workspace.current', {}, { throttleMs: 2000 });
  useEffect(() => {
    if (ws.data) setWorkspace(ws.data);
    setConnected(!ws.error);
  }, [ws.data, ws.error]);

  // 1..9 jump between views when the curator is not typing (the first nine of the nav).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey || e.ctrlKey || e.metaKey || isTypingTarget(e.target)) return;
      const n = Number(e.key);
      const item = NAV[n - 1];
      if (item && route.view !== 'review') navigate({ view: item.view, params: {} });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [route.view]);

  const jobs = useJobs();
  const navView = route.view === 'corrections' ? 'writes' : route.view;
  return (
    <>
      <div className="app">
        <nav className="nav" aria-label="Main">
          <div className="brand">
            Reflection Workbench
            <small>curate what the agent remembers</small>
          </div>
          {NAV.map((n, i) => (
            <a
              key={n.view}
              href={hrefFor(n.view)}
              className={navView === n.view ? 'active' : ''}
              aria-current={navView === n.view ? 'page' : undefined}
            >
              <span>{n.label}</span>
              {i < 9 && <span className="nav-key">{i + 1}</span>}
            </a>
          ))}
          <div className="nav-spacer" />
          <WorkspaceSwitcher
            workspace={workspace}
            onOpened={(w) => {
              setWorkspace(w);
              void queryClient.invalidateQueries();
            }}
          />
        </nav>
        <main className="main">
          {ws.error && !workspace ? (
            <ErrorMessage action="Loading the workspace" error={ws.error} onRetry={() => void ws.refetch()} />
          ) : null}
          <CurrentView view={route.view} />
        </main>
        <footer className="statusbar" data-testid="statusbar">
          <span title={workspace?.dir}>{workspace ? workspace.dir : 'no workspace'}</span>
          {workspace && (
            <span>
              {formatCount(workspace.counts.sessions)} sessions · {formatCount(workspace.counts.turns)} turns ·{' '}
              {formatCount(workspace.counts.decisions)} decisions · {formatCount(workspace.counts.writes)} writes ·{' '}
              {formatCount(workspace.counts.samples)} samples
            </span>
          )}
          <span title="The view refreshes when the database changes">
            <span key={pulse} className={`live-dot${connected ? (pulse ? ' pulse' : '') : ' off'}`} />
            {connected ? 'live' : 'offline'}
          </span>
          <span className="grow" />
          {jobs.map((j) => (
            <ProgressBar key={j.key} progress={j} onCancel={j.cancel} />
          ))}
        </footer>
      </div>
      <CuratorNamePrompt />
    </>
  );
}
