import { useState } from 'react';
import { VisibleText } from '../components/VisibleText';
import { MEMORY_FILES, type MemoryFileName } from '../../../shared/domain';
import type { AuditDetail, CorrectionDto } from '../../../shared/contract';
import { Chip } from '../components/Chip';
import { Message } from '../components/Conversation';
import { ErrorMessage } from '../components/ErrorMessage';
import { useApi } from '../lib/api';
import { formatTime } from '../lib/format';
import { hrefFor, useViewParams } from '../lib/route';
import { useAction, useAsync, useDebounced, useStoredState } from '../lib/useAsync';
import { DiffView } from '../monaco/DiffView';

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
  // The file as it would read with the correction: a retry preview for a write, the rollback preview for a refusal.
  const fact = useDebounced(draft.fact.trim(), 400);
  const resulting = useAsync(
    async () => {
      if (draft.status === 'written') {
        if (!fact) return null;
        const r = await api.call('guardian.retry', { auditId: a.id, fact, file: draft.file, dryRun: true });
        return { before: r.currentContent, after: r.content, file: r.targetFile };
      }
      if (a.status !== 'written') return null;
      const r = await api.call('guardian.rollback', { auditId: a.id, reason: 'preview', dryRun: true });
      return { before: null as string | null, after: r.resultContent, file: r.fileName, conflict: r.conflict?.message };
    },
    [a.id, draft.status, fact, draft.file],
    { live: false },
  );
  const diff = useAsync(() => api.call('guardian.diff', { id: a.id }), [a.id], { live: false });
  return (
    <div className="stack" data-testid="correction-editor">
      <div className="side-by-side">
        <div className="card stack" data-testid="correction-original">
          <h3>Original</h3>
          {detail.decision && (
            <dl className="kv">
              <dt>Decision</dt>
              <dd><Chip value={detail.decision.decision} /></dd>
              <dt>Reason</dt>
              <dd className="prewrap"><VisibleText text={detail.decision.reason} /></dd>
            </dl>
          )}
          <dl className="kv">
            <dt>Write</dt>
            <dd><Chip value={a.status} /> <span className="mono">{a.targetFile}</span></dd>
            <dt>Fact</dt>
            <dd className="prewrap">{a.candidateFact != null ? <VisibleText text={a.candidateFact} /> : <span className="muted">none</span>}</dd>
            {a.reason && (<><dt>Guardian</dt><dd className="prewrap"><VisibleText text={a.reason} /></dd></>)}
            <dt>When</dt>
            <dd>{formatTime(a.createdAt)}</dd>
          </dl>
          {detail.turn && (
            <details open>
              <summary>Conversation</summary>
              <Message role="user" from={detail.turn.userFrom}>{detail.turn.userMessage}</Message>
              <Message role="agent">{detail.turn.agentReply}</Message>
            </details>
          )}
          {detail.corrections.length > 0 && (
            <div className="small muted">Corrections of this write: {detail.corrections.map((c) => `${c.correctedStatus} (${formatTime(c.correctedAt)})`).join(', ')}</div>
          )}
        </div>
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
              <input type="radio" name="status" checked={draft.status === 'written'} onChange={() => patch({ status: 'written' })} /> should have written
            </label>
            <label className="inline">
              <input type="radio" name="status" checked={draft.status === 'refused'} onChange={() => patch({ status: 'refused' })} /> should have refused
            </label>
          </fieldset>
          <label>
            Fact
            <textarea rows={3} value={draft.fact} onChange={(e) => patch({ fact: e.target.value })} aria-label="Corrected fact" />
          </label>
          {touched && errors.fact && <span className="field-error">{errors.fact}</span>}
          <label>
            Target file
            <select value={draft.file} onChange={(e) => patch({ file: e.target.value as MemoryFileName })} disabled={draft.status === 'refused'} aria-label="Corrected target file">
              {MEMORY_FILES.map((f) => <option key={f} value={f}>{f}</option>)}
            </select>
          </label>
          <label>
            Reason
            <textarea rows={2} value={draft.reason} onChange={(e) => patch({ reason: e.target.value })} aria-label="Correction reason" />
          </label>
          {touched && errors.reason && <span className="field-error">{errors.reason}</span>}
          <label className="inline">
            <input type="checkbox" checked={draft.applyToFuture} onChange={(e) => patch({ applyToFuture: e.target.checked })} /> Apply to future turns
          </label>
          <label>
            Pattern (what future cases look like)
            <input value={draft.pattern} onChange={(e) => patch({ pattern: e.target.value })} aria-label="Correction pattern" placeholder="e.g. one-off schedule details" />
          </label>
          {touched && errors.pattern && <span className="field-error">{errors.pattern}</span>}
          <div className="row-flex">
            <button type="submit" className="primary" disabled={submit.pending || !!saved}>{submit.pending ? 'Saving…' : 'Record correction'}</button>
            <button type="button" onClick={() => { clearDraft(); setTouched(false); setSaved(null); }}>{saved ? 'New correction' : 'Discard draft'}</button>
            {!saved && <span className="muted small">Draft kept while you work.</span>}
          </div>
          <ErrorMessage action="Recording the correction" error={submit.error} />
          {saved && (
            <div className="notice" data-testid="correction-saved">
              Correction recorded ({saved.correctedStatus}{saved.applyToFuture ? ', applies to future turns' : ''}).{' '}
              {saved.correctedStatus === 'written' && <a href={hrefFor('writes', { id: a.id, tab: 'retry' })}>Apply it now with Retry →</a>}
            </div>
          )}
        </form>
      </div>
      <div className="side-by-side">
        <div className="stack">
          <h3>The original write</h3>
          <ErrorMessage action="Loading the original diff" error={diff.error} />
          {diff.data && <DiffView before={diff.data.before} after={diff.data.after} height={300} label="original write" beforeLabel="before the write" afterLabel="after it" />}
        </div>
        <div className="stack">
          <h3>The file with the correction</h3>
          <ErrorMessage action="Previewing the corrected file" error={resulting.error} onRetry={resulting.reload} />
          {resulting.data === null && !resulting.loading && <div className="muted small">Enter the fact to preview the corrected file.</div>}
          {resulting.data && (
            <>
              {resulting.data.conflict && (
                <details className="warning">
                  <summary>The file changed since this write: undoing it alone conflicts with later edits (details)</summary>
                  <div className="prewrap small">{resulting.data.conflict}</div>
                </details>
              )}
              <DiffView before={resulting.data.before ?? diff.data?.after ?? null} after={resulting.data.after} height={300} label="corrected file" beforeLabel="the file now" afterLabel="with the correction" />
            </>
          )}
        </div>
      </div>
    </div>
  );
}
