// A sample's near-duplicate cluster in review (issue 12, item 7): how many copies there are, which one
// an export keeps and why, and a button to make another member the representative.
import { useState } from 'react';
import type { SampleCluster } from '../../../../shared/contract';
import { ErrorMessage } from '../../components/ErrorMessage';
import { useApi } from '../../lib/api';
import { useAsync } from '../../lib/useAsync';
import './sampleEditor.css';

const BECAUSE: Record<SampleCluster['representativeBecause'], string> = {
  pick: 'picked by a curator',
  corrected: 'it carries a correction',
  edited: 'a curator edited it',
  first: 'the oldest member',
};

export function ClusterPanel({ sampleId }: { sampleId: string }) {
  const api = useApi();
  const cluster = useAsync(() => api.call('dataset.cluster', { id: sampleId }), [sampleId]);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const c = cluster.data;
  if (!c || c.members.length < 2) {
    return c ? (
      <div className="card small muted" data-testid="cluster-panel">
        No near-duplicates.
      </div>
    ) : (
      <ErrorMessage action="Loading near-duplicates" error={cluster.error} />
    );
  }
  const pick = async (id: string) => {
    setBusy(true);
    setError(undefined);
    try {
      await api.call('dataset.pickRepresentative', { id });
      cluster.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="card stack" data-testid="cluster-panel">
      <h3 data-testid="cluster-count">{c.members.length - 1} near-duplicates</h3>
      <p className="small muted">
        An export keeps one of them: {c.representativeId === sampleId ? 'this sample' : 'another member'} (
        {BECAUSE[c.representativeBecause]}).
      </p>
      <ul className="cluster-members small">
        {c.members.map((m) => (
          <li key={m.id} className={m.id === c.representativeId ? 'representative' : undefined}>
            <span className="mono">{m.id === sampleId ? 'this sample' : m.id.slice(-8)}</span> · {m.sampleType.replace(/_/g, ' ')} ·{' '}
            {m.annotationStatus.replace(/_/g, ' ')}
            {m.corrected && ' · corrected'}
            {m.edited && ' · edited'}
            {m.id === c.representativeId ? (
              <strong> · exported</strong>
            ) : (
              <button type="button" className="small" disabled={busy} onClick={() => void pick(m.id)} data-testid="cluster-pick">
                export this one
              </button>
            )}
          </li>
        ))}
      </ul>
      <ErrorMessage action="Picking the representative" error={error} />
    </div>
  );
}
