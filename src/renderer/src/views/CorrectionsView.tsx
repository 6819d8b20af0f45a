import { useState } from 'react';
import { MEMORY_FILES, type MemoryFileName } from '../../../shared/domain';
import type { AuditDetail, CorrectionDto } from '../../../shared/contract';
import { ErrorMessage } from '../components/ErrorMessage';
import { useApi } from '../lib/api';
import { hrefFor, useViewParams } from '../lib/route';
import { useAction, useAsync, useStoredState } from '../lib/useAsync';
import { CorrectionPreviews } from './corrections/CorrectionPreviews';
import { OriginalCard } from './corrections/OriginalCard';

export interface CorrectionDraft {
  status: 'written' | 'refused';
  fact: string;
  file: MemoryFileName;
  reason: string;
  applyToFuture: boolean;
  pattern: string;
}

export function validateCorrection(d: CorrectionDraft): Partial<Record<keyof CorrectionDraft, string>> {
  const errors: Partial<Record<keyof CorrectionDraft, string>> = {};
  if (!d.reason.trim()) errors.reason = 'Say why the original was wrong.';
  else if (d.reason.length > 2000) errors.reason = 'Keep the reason under 2,000 characters.';
  if (d.status === 'written' && !d.fact.trim()) errors.fact = 'A write needs the fact it should have written.';
  if (d.fact.length > 20_000) errors.fact = 'The fact is too long (20,000 characters at most).';
  if (d.applyToFuture && !d.pattern.trim()) errors.pattern = 'Applying to future turns needs a pattern that recognises them.';
  if (d.pattern.length > 2000) errors.pattern = 'The pattern is too long (2,000 characters at most).';
  return errors;
}

export function CorrectionsView() {
  const api = useApi();
  const [params] = useViewParams('corrections');
  const auditId = params.audit;
  const detail = useAsync(() => api.call('guardian.show', { id: auditId! }), [auditId], { skip: !auditId });
  return (
    <div className="view" data-testid="view-corrections">
      <div className="view-header">
        <h1>Correction</h1>
        {auditId && <a href={hrefFor('writes', { id: auditId })}>← back to the write</a>}
      </div>
      <div className="pane no-border" style={{ flex: 1 }}>
        {!auditId && (
          <div className="empty">
            Open a write in <a href={hrefFor('writes')}>Writes</a> and choose <em>Correct…</em> to record what it should have done.
          </div>
        )}
        <ErrorMessage action="Loading the write to correct" error={detail.error} onRetry={detail.reload} />
        {detail.data && <CorrectionEditor key={detail.data.audit.id} detail={detail.data} />}
      </div>
    </div>
  );
}

function CorrectionEditor({ detail }: { detail: AuditDetail }) {
  const api = useApi();
  const a = detail.audit;
  const initial: CorrectionDraft = {
    status: a.status === 'written' ? 'refused' : 'written',
    fact: a.candidateFact ?? detail.decision?.candidateFact ?? '',
    file: a.targetFile,
    reason: '',
    applyToFuture: false,
    pattern: '',
  };
  // The draft survives navigating away and reloads until it is saved or discarded.
  const [draft, setDraft, clearDraft, forgetDraft] = useStoredState<CorrectionDraft>(`reflection.correctionDraft.${a.id}`, initial);
  const [touched, setTouched] = useState(false);
  const [saved, setSaved] = useState<CorrectionDto | null>(null);
  const errors = validateCorrection(draft);
  const valid = Object.keys(errors).length === 0;
  const patch = (p: Partial<CorrectionDraft>) => {
    setSaved(null);
    setDraft((d) => ({ ...d, ...p }));
  };
  const submit = useAction(async () => {
    const c = await api.call('guardian.correct', {
      auditId: a.id,
      status: draft.status,
      fact: draft.fact.trim() || undefined,
      file: draft.status === 'written' ? draft.file : undefined,
      reason: draft.reason.trim(),
      applyToFuture: draft.applyToFuture,
      pattern: draft.pattern.trim() || undefined,
    });
    setSaved(c);
    forgetDraft();
    return c;
  });
  return (
    <div className="stack" data-testid="correction-editor">
      <div className="side-by-side">
        <OriginalCard detail={detail} />
        <form
          className="card stack"
          data-testid="correction-form"
          onSubmit={(e) => {
            e.preventDefault();
            setTouched(true);
            if (valid) void submit.run();
          }}
        >
          <h3>Corrected</h3>
          <fieldset className="row-flex" style={{ border: 0, padding: 0, margin: 0 }}>
            <legend className="small muted">Corrected status</legend>
            <label className="inline">
              <input type="radio" name="status" checked={draft.status === 'written'} onChange={() => patch({ status: 'written' })} /> should
              have written
            </label>
            <label className="inline">
              <input type="radio" name="status" checked={draft.status === 'refused'} onChange={() => patch({ status: 'refused' })} /> should
              have refused
            </label>
          </fieldset>
          <label>
            Fact
            <textarea rows={3} value={draft.fact} onChange={(e) => patch({ fact: e.target.value })} aria-label="Corrected fact" />
          </label>
          {touched && errors.fact && <span className="field-error">{errors.fact}</span>}
          <label>
            Target file
            <select
              value={draft.file}
              onChange={(e) => patch({ file: e.target.value as MemoryFileName })}
              disabled={draft.status === 'refused'}
              aria-label="Corrected target file"
            >
              {MEMORY_FILES.map((f) => (
                <option key={f} value={f}>
                  {f}
                </option>
              ))}
            </select>
          </label>
          <label>
            Reason
            <textarea rows={2} value={draft.reason} onChange={(e) => patch({ reason: e.target.value })} aria-label="Correction reason" />
          </label>
          {touched && errors.reason && <span className="field-error">{errors.reason}</span>}
          <label className="inline">
            <input type="checkbox" checked={draft.applyToFuture} onChange={(e) => patch({ applyToFuture: e.target.checked })} /> Apply to
            future turns
          </label>
          <label>
            Pattern (what future cases look like)
            <input
              value={draft.pattern}
              onChange={(e) => patch({ pattern: e.target.value })}
              aria-label="Correction pattern"
              placeholder="e.g. one-off schedule details"
            />
          </label>
          {touched && errors.pattern && <span className="field-error">{errors.pattern}</span>}
          <div className="row-flex">
            <button type="submit" className="primary" disabled={submit.pending || !!saved}>
              {submit.pending ? 'Saving…' : 'Record correction'}
            </button>
            <button
              type="button"
              onClick={() => {
                clearDraft();
                setTouched(false);
                setSaved(null);
              }}
            >
              {saved ? 'New correction' : 'Discard draft'}
            </button>
            {!saved && <span className="muted small">Draft kept while you work.</span>}
          </div>
          <ErrorMessage action="Recording the correction" error={submit.error} />
          {saved && (
            <div className="notice" data-testid="correction-saved">
              Correction recorded ({saved.correctedStatus}
              {saved.applyToFuture ? ', applies to future turns' : ''}).{' '}
              {saved.correctedStatus === 'written' && <a href={hrefFor('writes', { id: a.id, tab: 'retry' })}>Apply it now with Retry →</a>}
            </div>
          )}
        </form>
      </div>
      <CorrectionPreviews audit={a} draft={draft} />
    </div>
  );
}
