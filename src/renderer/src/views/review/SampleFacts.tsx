// The side panel's facts about one sample: quality factors, feedback signals, where it came from.
import type { SampleDetail } from '../../../../shared/contract';
import { hrefFor } from '../../lib/route';

export function SampleFacts({ sample, onCluster }: { sample: SampleDetail; onCluster: (clusterId: string) => void }) {
  const f = sample.qualityFactors;
  const bar = (label: string, v: number | null | undefined) => (
    <div key={label} className="stack" style={{ gap: 2 }}>
      <span className="small">
        {label}: {v == null ? '—' : v.toFixed(2)}
      </span>
      <div className="bar">
        <span style={{ width: `${Math.round((v ?? 0) * 100)}%` }} />
      </div>
    </div>
  );
  return (
    <>
      <div className="stack" style={{ gap: 6 }} data-testid="quality-factors">
        <h3>Quality</h3>
        {bar('score', sample.qualityScore)}
        {f && bar('conversation clarity', f.conversationClarity)}
        {f && bar('decision confidence', f.decisionConfidence)}
        {f && bar('fact verifiability', f.factVerifiability)}
      </div>
      <div className="stack" style={{ gap: 4 }} data-testid="feedback-signals">
        <h3>Feedback signals</h3>
        {sample.feedbackSignals.length === 0 && <span className="muted small">None detected in the following turns.</span>}
        {sample.feedbackSignals.map((s, i) => (
          <div key={i} className="small">
            <span className="chip">{s.kind}</span> <span className="prewrap">“{s.evidence}”</span>
          </div>
        ))}
      </div>
      <div className="small muted">
        Session <a href={hrefFor('sessions', { id: sample.sessionId })}>{sample.sessionId}</a>
        {sample.auditId && (
          <>
            {' '}
            · <a href={hrefFor('writes', { id: sample.auditId })}>write</a>
          </>
        )}
        {sample.clusterId && (
          <>
            {' '}
            ·{' '}
            <button type="button" className="small" onClick={() => onCluster(sample.clusterId!)} data-testid="filter-to-cluster">
              its near-duplicate cluster
            </button>
          </>
        )}
        {sample.annotatedBy && (
          <div>
            Last labelled by <b>{sample.annotatedBy}</b>
          </div>
        )}
        {sample.annotationNotes && <div className="prewrap">Notes: {sample.annotationNotes}</div>}
      </div>
    </>
  );
}
