// What an export holds, as its summary says: included statuses and quality floor, label balance,
// folded near-duplicates, identical records dropped, tokens for the target model, languages, notes.
import type { ExportSummary } from '../../../../shared/contract';
import { formatCount } from '../../lib/format';
import '../review/sampleEditor.css';

const pct = (n: number, total: number) => (total ? ` (${Math.round((n / total) * 100)}%)` : '');

export function ExportSummaryView({ summary: s }: { summary: ExportSummary }) {
  const g = s.balance.memory_gate;
  const w = s.balance.write_guardian;
  const gate = g.write + g.no_write;
  return (
    <dl className="export-summary small" data-testid="export-summary">
      <dt>Included</dt>
      <dd>
        {s.included.statuses.join(', ')}
        {s.included.minQuality !== null ? `, quality ≥ ${s.included.minQuality}` : ', any quality'}
        {s.included.balanced ? `, balanced (${formatCount(s.balancedOut)} left out)` : ''}
      </dd>
      <dt>Label balance</dt>
      <dd data-testid="export-balance">
        memory_gate: write {formatCount(g.write)}
        {pct(g.write, gate)}, NO_WRITE {formatCount(g.no_write)}
        {pct(g.no_write, gate)} · write_guardian: write {formatCount(w.write)}, refuse {formatCount(w.refuse)}, skip {formatCount(w.skip)}
        {s.balance.kto
          ? ` · KTO desirable ${formatCount(s.balance.kto.desirable)}, undesirable ${formatCount(s.balance.kto.undesirable)}`
          : ''}
      </dd>
      <dt>Near duplicates</dt>
      <dd data-testid="export-folded">
        {formatCount(s.folded.total)} folded, {formatCount(s.folded.approved)} of them approved; {formatCount(s.identicalDropped.count)}{' '}
        identical records dropped
        {s.folded.samples.length > 0 && (
          <details>
            <summary>Folded approved samples</summary>
            <ul className="mono">
              {s.folded.samples.slice(0, 50).map((f) => (
                <li key={f.sampleId}>
                  {f.sampleId} → kept {f.keptSampleId}
                </li>
              ))}
            </ul>
          </details>
        )}
      </dd>
      {s.tokens && (
        <>
          <dt>
            Tokens ({s.tokens.encoding}, {s.tokens.model})
          </dt>
          <dd>
            {formatCount(s.tokens.total)} in all, longest {formatCount(s.tokens.max)}; {formatCount(s.tokens.overLimit)} over{' '}
            {formatCount(s.tokens.limit)}
          </dd>
        </>
      )}
      <dt>Languages</dt>
      <dd>{s.languages.join(', ') || 'n/a'}</dd>
      {s.notes.map((n) => (
        <dd key={n} className="warning-text">
          {n}
        </dd>
      ))}
    </dl>
  );
}
