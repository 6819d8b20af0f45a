// PII review at scale: each value of the sample is decided once (redact or keep) for this sample, its
// session, the workspace or everywhere, with how many samples each scope covers; recent value
// decisions are listed with undo.
import { useEffect, useState } from 'react';
import { normalizePiiValue, type PiiScope, type PiiValueDecisionDto, type PiiValue, type SampleDetail } from '../../../../shared/contract';
import { ErrorMessage } from '../../components/ErrorMessage';
import { redactLocally, type PiiGroup } from '../../components/PiiText';
import { useApi } from '../../lib/api';
import { formatCount } from '../../lib/format';
import { humanizePath, parseRedacted, textAt } from './sampleFields';

export type DecisionScope = 'sample' | PiiScope;
export const SCOPE_LABEL: Record<DecisionScope, string> = {
  sample: 'this sample',
  session: 'this session',
  workspace: 'this workspace',
  global: 'everywhere',
};

interface PiiValuePanelProps {
  sample: SampleDetail;
  groups: PiiGroup[];
  selectedKey?: string;
  onSelect: (i: number) => void;
  /** Decides the value in the chosen scope (ReviewView: per sample, or one value decision). */
  onDecide: (g: PiiGroup, d: 'redact' | 'keep') => void;
  /** Called after an undo changed samples on the server. */
  onValuesChanged: () => void;
  /** Changes when a value decision was made, so the counts and the decision list reload. */
  refreshKey: number;
  scope: DecisionScope;
  onScope: (s: DecisionScope) => void;
}

export function PiiValuePanel({
  sample,
  groups,
  selectedKey,
  onSelect,
  onDecide,
  onValuesChanged,
  refreshKey,
  scope,
  onScope,
}: PiiValuePanelProps) {
  const api = useApi();
  const [usage, setUsage] = useState<Map<string, PiiValue>>(new Map());
  const [decisions, setDecisions] = useState<PiiValueDecisionDto[]>([]);
  const [error, setError] = useState<{ action: string; error: unknown } | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let stop = false;
    Promise.all([api.call('pii.values', { sessionId: sample.sessionId }), api.call('pii.valueDecisions', {})]).then(
      ([values, list]) => {
        if (stop) return;
        setUsage(new Map(values.map((v) => [normalizePiiValue(v.value), v])));
        setDecisions(list.slice(0, 8));
      },
      (e) => !stop && setError({ action: 'Counting the samples each PII value is in', error: e }),
    );
    return () => {
      stop = true;
    };
  }, [api, sample.sessionId, tick, refreshKey]);

  const undo = async (id: number) => {
    try {
      await api.call('pii.undoValueDecision', { id });
      setTick((t) => t + 1);
      onValuesChanged();
    } catch (e) {
      setError({ action: 'Undoing the value decision', error: e });
    }
  };
  const covers = (g: PiiGroup): string => {
    const u = usage.get(normalizePiiValue(g.value));
    if (scope === 'sample') return `${g.spans.length} here`;
    if (!u) return '…';
    const n = scope === 'session' ? (u.sessionSamples ?? 0) : u.workspaceSamples;
    return `${formatCount(n)} sample${n === 1 ? '' : 's'}${scope === 'global' ? ' here + other workspaces' : ''}`;
  };
  return (
    <div className="stack" style={{ gap: 6 }} data-testid="privacy-panel">
      <div className="row-flex">
        <h3 className="grow">Privacy</h3>
        <label className="small">
          decide for{' '}
          <select
            value={scope}
            onChange={(e) => onScope(e.target.value as DecisionScope)}
            aria-label="PII decision scope"
            data-testid="pii-scope"
          >
            {(Object.keys(SCOPE_LABEL) as DecisionScope[]).map((s) => (
              <option key={s} value={s}>
                {SCOPE_LABEL[s]}
              </option>
            ))}
          </select>
        </label>
      </div>
      {error && (
        <div onClick={() => setError(null)}>
          <ErrorMessage action={error.action} error={error.error} />
        </div>
      )}
      {groups.map((g, i) => (
        <div
          key={g.key}
          className="stack small"
          style={{ gap: 2, outline: g.key === selectedKey ? '2px solid var(--accent)' : undefined, borderRadius: 4, padding: 3 }}
          onClick={() => onSelect(i)}
          data-testid="pii-span-row"
          data-value={g.value}
        >
          <div className="row-flex">
            <span className="chip">{g.type}</span>
            {/* A value is one unit: it never wraps in the middle (a phone number split over two lines reads as two). */}
            <span className="mono grow nowrap" style={{ overflow: 'hidden', textOverflow: 'ellipsis', minWidth: 0 }} title={g.value}>
              {g.value}
            </span>
          </div>
          <div className="row-flex">
            <span className="muted nowrap grow" data-testid="pii-covers">
              {covers(g)}
            </span>
            <button
              type="button"
              className={g.decision === 'redact' ? 'primary' : ''}
              onClick={() => onDecide(g, 'redact')}
              aria-pressed={g.decision === 'redact'}
            >
              redact
            </button>
            <button
              type="button"
              className={g.decision === 'keep' ? 'primary' : ''}
              onClick={() => onDecide(g, 'keep')}
              aria-pressed={g.decision === 'keep'}
            >
              keep
            </button>
          </div>
        </div>
      ))}
      {decisions.length > 0 && (
        <div className="stack small" style={{ gap: 2 }} data-testid="pii-value-decisions">
          <span className="muted">Value decisions</span>
          {decisions.map((d) => (
            <div
              key={d.id}
              className="row-flex"
              style={{ opacity: d.undoneAt ? 0.6 : 1, flexWrap: 'wrap' }}
              data-testid="pii-value-decision"
            >
              <span className="chip">{d.decision}</span>
              <span className="mono nowrap" style={{ overflow: 'hidden', textOverflow: 'ellipsis', maxWidth: '100%' }} title={d.value}>
                {d.value}
              </span>
              <span className="muted grow" style={{ minWidth: 0 }}>
                <span className="nowrap">{SCOPE_LABEL[d.scope]}</span> · <span className="nowrap">{formatCount(d.samples)} samples</span> ·{' '}
                <span className="nowrap">by {d.actor}</span>
              </span>
              {d.undoneAt ? (
                <span className="muted nowrap">undone</span>
              ) : (
                <button type="button" className="small" onClick={() => void undo(d.id)}>
                  undo
                </button>
              )}
            </div>
          ))}
        </div>
      )}
      <RedactedPreview sample={sample} />
    </div>
  );
}

function RedactedPreview({ sample }: { sample: SampleDetail }) {
  const redacted = parseRedacted(sample.piiRedactedContent);
  const fields = [...new Set(sample.piiSpans.map((s) => s.field ?? ''))];
  return (
    <>
      <h3>Redacted text (as exported)</h3>
      <div data-testid="redacted-text" className="stack" style={{ gap: 4 }}>
        {fields.map((field) => {
          const original = textAt(sample.content, field);
          // The server's copy is what the export writes; the local redaction stands in when there is none.
          const text =
            textAt(redacted, field) ??
            (original != null
              ? redactLocally(
                  original,
                  sample.piiSpans.filter((s) => (s.field ?? '') === field),
                )
              : '');
          return (
            <div key={field} className="msg redacted small">
              <div className="msg-role">{humanizePath(field)}</div>
              <div className="prewrap">{text}</div>
            </div>
          );
        })}
      </div>
    </>
  );
}
