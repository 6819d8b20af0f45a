// Retention: a dry run lists what a prune would delete and why old rows stay; applying it needs an
// explicit confirm. Conversation archives are written as a job with progress and Cancel.
import { useState } from 'react';
import type { ConversationExportResult, PruneOutcome } from '../../../../shared/contract';
import { ErrorMessage } from '../../components/ErrorMessage';
import { ProgressBar } from '../../components/ProgressBar';
import { useApi } from '../../lib/api';
import { isCancelled } from '../../lib/errors';
import { dateToMs, formatBytes, formatCount, formatTime } from '../../lib/format';
import { startJob, useJob } from '../../lib/jobs';
import { useAction } from '../../lib/useAsync';
import { CountsTable } from './Exclusions';

export function RetentionPanel() {
  const api = useApi();
  const [days, setDays] = useState('');
  const [preview, setPreview] = useState<PruneOutcome | null>(null);
  const [applied, setApplied] = useState<PruneOutcome | null>(null);
  const [understood, setUnderstood] = useState(false);
  const [forced, setForced] = useState(false);
  // The rules for days (whole, minimum, maximum) live in main's schema: its message is shown as is.
  const n = days.trim() === '' ? undefined : Number(days);
  const daysError = n !== undefined && Number.isNaN(n) ? 'Days is a number (empty: storage.retentionDays).' : null;
  const dryRun = useAction(async () => {
    setApplied(null);
    setUnderstood(false);
    setForced(false);
    setPreview(await api.call('retention.prune', { days: n, dryRun: true }));
  });
  const apply = useAction(async () => {
    if (!preview) return;
    // Apply exactly what was previewed: its window and its token (main refuses if the data changed).
    setApplied(await api.call('retention.prune', { days: preview.days, confirm: true, previewToken: preview.previewToken, force: forced }));
    setPreview(null);
  });
  const shown = applied ?? preview;
  return (
    <div className="card stack" data-testid="retention-panel">
      <h2>Retention</h2>
      <div className="filters">
        <label>
          Older than (days)
          <input
            value={days}
            onChange={(e) => {
              setDays(e.target.value);
              setPreview(null);
            }}
            placeholder="retentionDays"
            size={8}
            aria-label="Retention days"
          />
        </label>
        <button type="button" disabled={!!daysError || dryRun.pending} onClick={() => void dryRun.run()}>
          Preview prune
        </button>
      </div>
      {daysError && <span className="field-error">{daysError}</span>}
      <ErrorMessage action="Previewing the prune" error={dryRun.error} />
      <ErrorMessage action="Pruning" error={apply.error} />
      {shown && (
        <div className={applied ? 'notice stack' : 'warning stack'} data-testid={applied ? 'prune-done' : 'prune-preview'}>
          <span>
            {applied ? 'Deleted' : 'Dry run: would delete'} rows created before {formatTime(shown.cutoff)} ({shown.days} days)
            {applied ? `; ${formatCount(shown.freedPages)} pages freed.` : '. Nothing has been deleted yet.'}
          </span>
          <CountsTable counts={shown.deleted} testId="prune-deleted" />
          {shown.kept.length > 0 && (
            <>
              <span className="small muted">Old rows that stay, and why:</span>
              <table className="data-table" data-testid="prune-kept">
                <thead>
                  <tr>
                    <th>Table</th>
                    <th>Reason kept</th>
                    <th>Rows</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.kept.map((k, i) => (
                    <tr key={i}>
                      <td className="mono">{k.table}</td>
                      <td>{k.reason}</td>
                      <td>{formatCount(k.count)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
          {!applied && (
            <div className="row-flex">
              <label className="inline">
                <input type="checkbox" checked={understood} onChange={(e) => setUnderstood(e.target.checked)} aria-label="Confirm prune" />{' '}
                Delete these rows permanently
              </label>
              {shown.needsForce && (
                <label className="inline" data-testid="prune-needs-force">
                  <input type="checkbox" checked={forced} onChange={(e) => setForced(e.target.checked)} aria-label="Prune without a copy" />{' '}
                  No backup or archive holds all of this data
                  {shown.safeCopyUntil ? ` (copies reach ${formatTime(shown.safeCopyUntil)})` : ''}: delete it anyway
                </label>
              )}
              <button
                type="button"
                className="danger"
                disabled={!understood || (shown.needsForce && !forced) || apply.pending}
                onClick={() => void apply.run()}
              >
                Apply prune
              </button>
            </div>
          )}
        </div>
      )}
    </div>
  );
}

export function ArchivePanel() {
  const api = useApi();
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [jobKey, setJobKey] = useState<string | null>(null);
  const job = useJob(jobKey);
  const [result, setResult] = useState<ConversationExportResult | null>(null);
  const [error, setError] = useState<unknown>();
  const run = () => {
    setError(undefined);
    setResult(null);
    const j = startJob(api, 'Archiving conversations', 'conversations.export', { since: dateToMs(since), until: dateToMs(until, true) });
    setJobKey(j.key);
    j.promise.then(setResult, (e) => setError(isCancelled(e) ? null : e)).finally(() => setJobKey(null));
  };
  return (
    <div className="card stack" data-testid="archive-panel">
      <h2>Conversation archive</h2>
      <span className="small muted">
        Turns with their decisions and writes, as JSONL, into the workspace's exports folder. Excluded sessions are skipped.
      </span>
      <div className="filters">
        <label>
          Since
          <input type="date" value={since} onChange={(e) => setSince(e.target.value)} aria-label="Archive since" />
        </label>
        <label>
          Until
          <input type="date" value={until} onChange={(e) => setUntil(e.target.value)} aria-label="Archive until" />
        </label>
        <button type="button" className="primary" disabled={!!jobKey} onClick={run}>
          Export conversations
        </button>
      </div>
      {job && <ProgressBar progress={job} onCancel={job.cancel} />}
      <ErrorMessage action="Archiving conversations" error={error} />
      {result && (
        <div className="notice" data-testid="archive-result">
          Wrote {formatCount(result.turns)} turns, {formatBytes(result.bytes)} to <span className="mono">{result.file}</span>
        </div>
      )}
    </div>
  );
}
