// Memory health in Stats: open findings, writes that stored secrets, and the hash chain's state.
import { ErrorMessage } from '../../components/ErrorMessage';
import { formatTime } from '../../lib/format';
import { hrefFor } from '../../lib/route';
import { useApiQuery } from '../../lib/queries';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function HealthCard({ link = true }: { link?: boolean }) {
  const s = useApiQuery('health.summary', {}, { throttleMs: 5000 });
  if (s.error) return <ErrorMessage action="Loading memory health" error={s.error} onRetry={() => void s.refetch()} />;
  if (!s.data) return null;
  const d = s.data;
  return (
    <div className="card stack" data-testid="health-card">
      <div className="row-flex">
        <strong>Memory health</strong>
        <span className="grow" />
        {link && <a href={hrefFor('health')}>Open the health view</a>}
      </div>
      <div className="row-flex small">
        <span>{plural(d.openFindings.contradiction, 'contradiction')}</span>·
        <span>{plural(d.openFindings.duplicate, 'repeated fact')}</span>·<span>{plural(d.openFindings.secret, 'secret')} in memory</span>
      </div>
      <div className="small" data-testid="health-flagged">
        {d.flaggedWrites} write{d.flaggedWrites === 1 ? '' : 's'} stored personal data ({d.flaggedSecretWrites} with credentials)
      </div>
      <div className="small" data-testid="health-chain">
        Hash chain:{' '}
        {d.chain.ok ? (
          <span style={{ color: 'var(--ok)' }}>intact</span>
        ) : (
          <span style={{ color: 'var(--bad)' }}>{d.chain.breaks} break(s)</span>
        )}{' '}
        over {d.chain.versions} versions
        {d.chain.rechains ? `, ${d.chain.rechains} recorded re-chain(s)` : ''} · checked {formatTime(d.chain.checkedAt)}
      </div>
    </div>
  );
}
