import { useState } from 'react';
import type { AuditRow, RollbackOutcome } from '../../../../shared/contract';
import { ErrorMessage } from '../../components/ErrorMessage';
import { useApi } from '../../lib/api';
import { textBeforePatch } from '../../lib/patch';
import { useAction, useAsync } from '../../lib/useAsync';
import { DiffView } from '../../monaco/DiffView';

// The reason is required by the API even for a dry run; the preview's is never stored.
const PREVIEW_REASON = 'preview';

/** Rollback in three steps: a dry-run preview (result + conflict), a reason, then apply. */
export function RollbackFlow({ audit, onDone }: { audit: AuditRow; onDone: () => void }) {
  const api = useApi();
  const [force, setForce] = useState(false);
  const [step, setStep] = useState<'preview' | 'reason' | 'done'>('preview');
  const [reason, setReason] = useState('');
  const [outcome, setOutcome] = useState<RollbackOutcome | null>(null);
  const preview = useAsync(
    () => api.call('guardian.rollback', { auditId: audit.id, reason: PREVIEW_REASON, dryRun: true, force }),
    [audit.id, force],
    // A dry run announces nothing, so this never triggers itself; it re-runs only when a write lands.
    { live: step === 'preview', areas: ['writes'] },
  );
  const apply = useAction(async () => {
    const r = await api.call('guardian.rollback', { auditId: audit.id, reason: reason.trim(), dryRun: false, force });
    setOutcome(r);
    if (r.status === 'rolled_back') {
      setStep('done');
      onDone();
    }
    return r;
  });
  if (audit.status === 'rolled_back' && step !== 'done') {
    return <div className="notice">This write was already rolled back.</div>;
  }
  const p = preview.data;
  const current = p?.conflict?.current ?? null;
  return (
    <div className="stack" data-testid="rollback-flow">
      <ol className="row-flex small muted" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        <li style={{ fontWeight: step === 'preview' ? 700 : 400 }}>1. Preview</li>
        <li>→</li>
        <li style={{ fontWeight: step === 'reason' ? 700 : 400 }}>2. Reason</li>
        <li>→</li>
        <li style={{ fontWeight: step === 'done' ? 700 : 400 }}>3. Applied</li>
      </ol>
      <ErrorMessage action="Previewing the rollback" error={preview.error} onRetry={preview.reload} />
      {step !== 'done' && p && (
        <>
          {p.status === 'conflict' && p.conflict ? (
            <div className="warning" data-testid="rollback-conflict">
              <strong>Conflict:</strong> {headline(p.conflict.message)}
              <details>
                <summary>Details</summary>
                <div className="prewrap small">{p.conflict.message}</div>
                {p.conflict.conflictingDiff && <pre className="prewrap">{p.conflict.conflictingDiff}</pre>}
              </details>
              <label className="inline">
                <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} /> Restore the old version anyway
                (discards the later changes)
              </label>
            </div>
          ) : (
            <div className="muted small" data-testid="rollback-mode">
              {p.mode === 'reverse_patch'
                ? 'The file changed since this write: only this write’s change is reversed, later changes stay.'
                : 'The file is restored to how it was before this write.'}
            </div>
          )}
          <div className="muted small">
            {p.resultContent == null
              ? 'After the rollback the file will be deleted (the write created it).'
              : `${p.fileName} now, and after the rollback:`}
          </div>
          <RollbackDiff outcome={p} current={current} />
        </>
      )}
      {step === 'preview' && p && (
        <div className="row-flex">
          <button type="button" className="primary" disabled={p.status === 'conflict' && !force} onClick={() => setStep('reason')}>
            Continue to reason…
          </button>
        </div>
      )}
      {step === 'reason' && (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            if (reason.trim()) void apply.run();
          }}
        >
          <label>
            Why roll this write back? (kept in the audit)
            <textarea rows={3} value={reason} onChange={(e) => setReason(e.target.value)} autoFocus aria-label="Rollback reason" />
          </label>
          {!reason.trim() && <span className="field-error">A reason is required.</span>}
          <div className="row-flex">
            <button type="button" onClick={() => setStep('preview')}>
              Back
            </button>
            <button type="submit" className="danger" disabled={!reason.trim() || apply.pending}>
              {apply.pending ? 'Rolling back…' : 'Apply rollback'}
            </button>
          </div>
          <ErrorMessage action="Applying the rollback" error={apply.error} />
          {outcome?.status === 'conflict' && (
            <div className="warning">Nothing was written: {outcome.conflict?.message ?? 'the rollback was refused'}.</div>
          )}
        </form>
      )}
      {step === 'done' && outcome && (
        <div className="notice" data-testid="rollback-done">
          Rolled back ({outcome.mode}). {outcome.fileName} {outcome.resultContent == null ? 'was deleted' : 'was restored'}; the rollback is
          recorded as its own write and can itself be undone.
        </div>
      )}
    </div>
  );
}

/** The first clause of a long service message, for a one-line summary. */
function headline(message: string): string {
  const cut = message.search(/[:.](\s|$)/);
  const head = cut > 0 ? message.slice(0, cut) : message;
  return head.length > 200 ? `${head.slice(0, 199)}…` : head;
}

export function RollbackDiff({
  outcome,
  current,
}: {
  outcome: Pick<RollbackOutcome, 'auditId' | 'resultContent' | 'diff'>;
  current: string | null;
}) {
  const api = useApi();
  // The preview carries the resulting file and the diff from the current file to it; the current file
  // is rebuilt from those (or comes with a conflict), else taken from the write's after-state.
  const rebuilt = current ?? (outcome.resultContent != null ? textBeforePatch(outcome.resultContent, outcome.diff) : null);
  const diff = useAsync(() => api.call('guardian.diff', { id: outcome.auditId }), [outcome.auditId], {
    skip: rebuilt !== null,
    live: false,
  });
  const left = rebuilt ?? diff.data?.after ?? null;
  return (
    <DiffView
      before={left}
      after={outcome.resultContent}
      height={340}
      label="rollback preview"
      beforeLabel="the file now"
      afterLabel="after the rollback"
    />
  );
}
