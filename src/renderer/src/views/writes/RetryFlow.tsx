import { useEffect, useState } from 'react';
import { MEMORY_FILES, type MemoryFileName } from '../../../../shared/domain';
import type { AuditRow, CorrectionDto, RetryOutcome } from '../../../../shared/contract';
import { ErrorMessage } from '../../components/ErrorMessage';
import { useApi } from '../../lib/api';
import { useAction } from '../../lib/useAsync';
import { DiffView } from '../../monaco/DiffView';
import { FileEditor } from '../../monaco/DiffView';

/**
 * Retry: the API previews the target file with the corrected fact applied (dry run); the curator edits
 * that content in Monaco and saves it, which records a new `retry` write.
 */
export function RetryFlow({ audit, corrections }: { audit: AuditRow; corrections: CorrectionDto[] }) {
  const api = useApi();
  const latest = corrections.find((c) => c.correctedStatus === 'written');
  const [fact, setFact] = useState(latest?.correctedCandidateFact ?? audit.candidateFact ?? '');
  const [file, setFile] = useState<MemoryFileName>(latest?.correctedTargetFile ?? audit.targetFile);
  const [content, setContent] = useState<string | null>(null);
  const [preview, setPreview] = useState<RetryOutcome | null>(null);
  const [saved, setSaved] = useState<RetryOutcome | null>(null);
  const [reason, setReason] = useState('');
  const load = useAction(async () => {
    const r = await api.call('guardian.retry', { auditId: audit.id, fact: fact.trim() || undefined, file, dryRun: true });
    setPreview(r);
    setContent(r.content);
    setSaved(null);
    return r;
  });
  const save = useAction(async () => {
    const r = await api.call('guardian.retry', {
      auditId: audit.id,
      fact: fact.trim() || undefined,
      file,
      content: content ?? undefined,
      dryRun: false,
      reason: reason.trim(),
    });
    setSaved(r);
    return r;
  });
  useEffect(() => {
    void load.run();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- load again only when another audit is shown
  }, [audit.id]);
  return (
    <div className="stack" data-testid="retry-flow">
      <div className="row-flex" style={{ alignItems: 'flex-end' }}>
        <label className="grow">
          Corrected fact
          <input value={fact} onChange={(e) => setFact(e.target.value)} aria-label="Corrected fact" />
        </label>
        <label>
          Target file
          <select value={file} onChange={(e) => setFile(e.target.value as MemoryFileName)} aria-label="Target file">
            {MEMORY_FILES.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => void load.run()} disabled={load.pending}>
          {load.pending ? 'Previewing…' : 'Preview with this fact'}
        </button>
      </div>
      <ErrorMessage action="Previewing the retry" error={load.error} onRetry={() => void load.run()} />
      {preview && content !== null && (
        <>
          <div className="muted small">{preview.targetFile} with the corrected fact applied — edit it as needed, then save.</div>
          <FileEditor value={content} onChange={setContent} height={320} />
          <details>
            <summary>Changes against the file on disk</summary>
            <DiffView
              before={preview.currentContent}
              after={content}
              height={260}
              label="retry diff"
              beforeLabel="the file now"
              afterLabel="after the retry"
            />
          </details>
          <label>
            Why retry this write? (kept in the audit, as for a rollback)
            <textarea rows={2} value={reason} onChange={(e) => setReason(e.target.value)} aria-label="Retry reason" />
          </label>
          {!reason.trim() && <span className="field-error">A reason is required.</span>}
          <div className="row-flex">
            <button type="button" className="primary" onClick={() => void save.run()} disabled={save.pending || !reason.trim()}>
              {save.pending ? 'Saving…' : `Save ${preview.targetFile}`}
            </button>
            <button type="button" onClick={() => setContent(preview.content)} disabled={content === preview.content}>
              Reset edits
            </button>
          </div>
        </>
      )}
      <ErrorMessage action="Saving the retry" error={save.error} />
      {saved && (
        <div className="notice" data-testid="retry-saved">
          Saved {saved.targetFile}; recorded as retry write {saved.auditId}.
        </div>
      )}
    </div>
  );
}
