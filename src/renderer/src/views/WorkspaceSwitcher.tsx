import { useState } from 'react';
import type { WorkspaceInfo } from '../../../shared/contract';
import { ErrorMessage } from '../components/ErrorMessage';
import { PickButton } from '../components/PickButton';
import { useApi } from '../lib/api';
import { useAction, useAsync } from '../lib/useAsync';
import { ImportDialog } from './ImportDialog';

export function WorkspaceSwitcher({ workspace, onOpened }: { workspace: WorkspaceInfo | undefined; onOpened: (w: WorkspaceInfo) => void }) {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const [importing, setImporting] = useState(false);
  const [dir, setDir] = useState('');
  const recent = useAsync((signal) => api.call('workspace.recent', {}), [], { skip: !open, live: false });
  const openWs = useAction(async (target: string) => {
    const w = await api.call('workspace.open', { dir: target });
    onOpened(w);
    setOpen(false);
    setDir('');
    return w;
  });
  return (
    <div className="workspace-switcher" data-testid="workspace-switcher">
      <span className="muted">Workspace{workspace?.isDemo ? ' (demo)' : ''}</span>
      <span className="ws-name" title={workspace?.dir}>
        {workspace?.name ?? '—'}
      </span>
      <div className="row-flex" style={{ gap: 4 }}>
        <button type="button" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
          {open ? 'Close' : 'Open…'}
        </button>
        <button type="button" onClick={() => setImporting(true)}>
          Import…
        </button>
      </div>
      {importing && <ImportDialog onClose={() => setImporting(false)} />}
      {open && (
        <div className="stack">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (dir.trim()) void openWs.run(dir.trim());
            }}
            className="stack"
          >
            <label>
              Folder path
              <input value={dir} onChange={(e) => setDir(e.target.value)} placeholder="/path/to/workspace" />
            </label>
            <div className="row-flex">
              <button type="submit" disabled={!dir.trim() || openWs.pending}>
                Open
              </button>
              <PickButton purpose="workspace" onPicked={(p) => void openWs.run(p)} />
            </div>
          </form>
          <ErrorMessage action="Opening the workspace" error={openWs.error} />
          <ErrorMessage action="Loading recent workspaces" error={recent.error} />
          {recent.data && recent.data.length > 0 && (
            <div className="stack" style={{ gap: 2 }}>
              <span className="muted">Recent</span>
              {recent.data.map((r) => (
                <button
                  key={r.dir}
                  type="button"
                  className="link"
                  disabled={!r.exists}
                  title={r.dir}
                  onClick={() => void openWs.run(r.dir)}
                  style={{ textAlign: 'left' }}
                >
                  {r.name}
                  {r.exists ? '' : ' (missing)'}
                </button>
              ))}
            </div>
          )}
        </div>
      )}
    </div>
  );
}
