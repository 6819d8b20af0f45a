// The original write's diff beside the file as it would read with the correction: a retry preview for a
// write, the rollback preview for a refusal.
import type { AuditDetail } from '../../../../shared/contract';
import { ErrorMessage } from '../../components/ErrorMessage';
import { useApi } from '../../lib/api';
import { useAsync, useDebounced } from '../../lib/useAsync';
import { DiffView } from '../../monaco/DiffView';
import type { CorrectionDraft } from '../CorrectionsView';

export function CorrectionPreviews({ audit: a, draft }: { audit: AuditDetail['audit']; draft: CorrectionDraft }) {
  const api = useApi();
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
    <div className="side-by-side">
      <div className="stack">
        <h3>The original write</h3>
        <ErrorMessage action="Loading the original diff" error={diff.error} />
        {diff.data && (
          <DiffView
            before={diff.data.before}
            after={diff.data.after}
            height={300}
            label="original write"
            beforeLabel="before the write"
            afterLabel="after it"
          />
        )}
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
            <DiffView
              before={resulting.data.before ?? diff.data?.after ?? null}
              after={resulting.data.after}
              height={300}
              label="corrected file"
              beforeLabel="the file now"
              afterLabel="with the correction"
            />
          </>
        )}
      </div>
    </div>
  );
}
