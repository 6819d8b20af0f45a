// Stats: agreement between curators. Start a second pass (all labelled samples or a random share),
// then read Cohen's kappa and raw agreement overall and per label, who labelled what, and the
// disagreements a lead settles.
import { useState } from 'react';
import type { AgreementFigure } from '../../../../shared/contract';
import { ErrorMessage } from '../../components/ErrorMessage';
import { useApi } from '../../lib/api';
import { formatCount } from '../../lib/format';
import { hrefFor } from '../../lib/route';
import { useAsync } from '../../lib/useAsync';

const pct = (x: number | null) => (x == null ? '—' : `${Math.round(x * 100)}%`);
const kappaText = (x: number | null) => (x == null ? '—' : x.toFixed(2));

function Figure({ label, f }: { label: string; f: AgreementFigure }) {
  return (
    <tr>
      <td>{label.replace(/_/g, ' ')}</td>
      <td className="nowrap" data-testid={`kappa-${label}`}>
        {kappaText(f.kappa)}
      </td>
      <td className="nowrap">{pct(f.raw)}</td>
      <td className="nowrap">{formatCount(f.n)}</td>
    </tr>
  );
}

export function AgreementPanel() {
  const api = useApi();
  const [version, setVersion] = useState(0);
  const report = useAsync(() => api.call('review.agreement', {}), [version]);
  const me = useAsync(() => api.call('curators.me', {}), []);
  const [share, setShare] = useState('100');
  const [preview, setPreview] = useState<{ added: number; eligible: number } | null>(null);
  const [error, setError] = useState<{ action: string; error: unknown } | null>(null);
  const run = async (dryRun: boolean) => {
    try {
      const r = await api.call('review.startSecondPass', { share: Math.min(100, Math.max(1, Number(share) || 100)) / 100, dryRun });
      if (dryRun) setPreview(r);
      else {
        setPreview(null);
        setVersion((v) => v + 1);
      }
    } catch (e) {
      setError({ action: 'Starting the second pass', error: e });
    }
  };
  const settle = async (sampleId: string, action: 'approve' | 'reject' | 'needs_review') => {
    try {
      await api.call('review.adjudicate', { sampleId, action });
      setVersion((v) => v + 1);
    } catch (e) {
      setError({ action: 'Settling the disagreement', error: e });
    }
  };
  const r = report.data;
  const isLead = me.data?.role === 'lead';
  return (
    <section className="card stack" style={{ gridColumn: '1 / -1' }} data-testid="agreement-panel">
      <h2>Agreement between curators</h2>
      <ErrorMessage action="Loading agreement" error={report.error} />
      {error && (
        <div onClick={() => setError(null)}>
          <ErrorMessage action={error.action} error={error.error} />
        </div>
      )}
      <div className="row-flex small">
        <label className="nowrap">
          Second pass for{' '}
          <input
            type="number"
            min={1}
            max={100}
            value={share}
            onChange={(e) => setShare(e.target.value)}
            style={{ width: 60 }}
            aria-label="Share of labelled samples (%)"
          />{' '}
          % of labelled samples
        </label>
        <button type="button" onClick={() => void run(true)} data-testid="second-pass-preview">
          Count
        </button>
        {preview && (
          <>
            <span className="nowrap">
              {formatCount(preview.added)} of {formatCount(preview.eligible)} samples go to a different curator.
            </span>
            <button
              type="button"
              className="primary"
              disabled={!preview.added}
              onClick={() => void run(false)}
              data-testid="second-pass-start"
            >
              Start second pass
            </button>
          </>
        )}
      </div>
      {r && (
        <>
          <p className="small" data-testid="agreement-summary">
            {r.overall.n ? (
              <>
                Cohen&apos;s κ <b>{kappaText(r.overall.kappa)}</b> · raw agreement <b>{pct(r.overall.raw)}</b> over{' '}
                {formatCount(r.overall.n)} samples labelled twice
              </>
            ) : (
              'No sample has been labelled twice yet.'
            )}
            {r.waiting > 0 && (
              <>
                {' '}
                · {formatCount(r.waiting)} waiting in the second-pass queue (
                <a href={hrefFor('review', { status: 'second' })}>review them</a>)
              </>
            )}
          </p>
          {r.overall.n > 0 && (
            <table className="small" style={{ width: 'auto', minWidth: 360 }} data-testid="agreement-table">
              <thead>
                <tr>
                  <th>Label</th>
                  <th>κ</th>
                  <th>Raw</th>
                  <th>Pairs</th>
                </tr>
              </thead>
              <tbody>
                <Figure label="overall" f={r.overall} />
                {Object.entries(r.perLabel).map(([label, f]) => (
                  <Figure key={label} label={label} f={f} />
                ))}
              </tbody>
            </table>
          )}
          {r.reviewers.length > 0 && (
            <p className="small" data-testid="review-by-curator">
              Review actions by curator: {r.reviewers.map((c) => `${c.name} ${formatCount(c.actions)}`).join(' · ')}
            </p>
          )}
          {r.curators.length > 0 && (
            <p className="small muted" data-testid="agreement-curators">
              {r.curators.map((c) => `${c.name}: ${formatCount(c.first)} first-pass, ${formatCount(c.second)} second-pass`).join(' · ')}
            </p>
          )}
          <h3>
            Disagreements ({formatCount(r.disagreements.length)}){r.adjudicated ? ` · ${formatCount(r.adjudicated)} settled` : ''}
          </h3>
          {!isLead && r.disagreements.length > 0 && <p className="muted small">A lead settles these.</p>}
          {r.disagreements.map((d) => (
            <div key={d.sampleId} className="row-flex small" data-testid="disagreement">
              <a href={hrefFor('review', { id: d.sampleId, status: 'all' })} className="mono">
                {d.sampleId.slice(-8)}
              </a>
              <span className="nowrap">
                {d.firstCurator}: <b>{d.firstLabel.replace('_', ' ')}</b>
              </span>
              <span className="nowrap">
                {d.secondCurator}: <b>{d.secondLabel.replace('_', ' ')}</b>
              </span>
              <span className="grow" />
              {isLead &&
                (['approve', 'reject', 'needs_review'] as const).map((a) => (
                  <button key={a} type="button" className="small" onClick={() => void settle(d.sampleId, a)}>
                    {a.replace('_', ' ')}
                  </button>
                ))}
            </div>
          ))}
        </>
      )}
    </section>
  );
}
