import { useState } from 'react';
import type { ImportReport } from '../../../shared/contract';
import { ErrorMessage } from '../components/ErrorMessage';
import { PickButton } from '../components/PickButton';
import { ProgressBar } from '../components/ProgressBar';
import { useApi } from '../lib/api';
import { isCancelled } from '../lib/errors';
import { formatCount } from '../lib/format';
import { startJob, useJob } from '../lib/jobs';

const SOURCES = [
  {
    channel: 'import.reflectionLogs',
    label: 'Reflection plugin logs',
    hint: 'the plugin folder (logs/) or the workspace with write-guardian.log.jsonl',
  },
  {
    channel: 'import.openclaw',
    label: 'OpenClaw sessions',
    hint: 'the OpenClaw state folder (agents/<id>/sessions and agents/<id>/agent/openclaw-agent.sqlite)',
  },
  {
    channel: 'import.evals',
    label: 'Plugin eval sets and model runs',
    hint: 'the plugin folder (evals/datasets, evals/results) or evals/datasets/memory-gate',
  },
  { channel: 'import.dailyNotes', label: 'OpenClaw daily notes (read-only)', hint: 'the OpenClaw workspace holding memory/YYYY-MM-DD.md' },
] as const;

type Source = (typeof SOURCES)[number]['channel'];

/** Imports run as jobs: progress in the dialog and the status bar, cancellable, with a report at the end. */
export function ImportDialog({ onClose }: { onClose: () => void }) {
  const api = useApi();
  const [source, setSource] = useState<Source>('import.reflectionLogs');
  const [dir, setDir] = useState('');
  const [jobKey, setJobKey] = useState<string | null>(null);
  const job = useJob(jobKey);
  const [report, setReport] = useState<ImportReport | null>(null);
  const [error, setError] = useState<unknown>();
  const start = () => {
    setError(undefined);
    setReport(null);
    const label = SOURCES.find((s) => s.channel === source)!.label;
    const j = startJob(api, `Importing ${label}`, source, { path: dir.trim() });
    setJobKey(j.key);
    j.promise.then(setReport, (e) => setError(isCancelled(e) ? null : e)).finally(() => setJobKey(null));
  };
  return (
    <div className="overlay" role="dialog" aria-label="Import" data-testid="import-dialog">
      <div className="dialog stack" style={{ width: 620 }}>
        <h2>Import what you already have</h2>
        <label>
          Source
          <select value={source} onChange={(e) => setSource(e.target.value as Source)} aria-label="Import source">
            {SOURCES.map((s) => (
              <option key={s.channel} value={s.channel}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Folder or file
          <input
            value={dir}
            onChange={(e) => setDir(e.target.value)}
            placeholder={SOURCES.find((s) => s.channel === source)!.hint}
            aria-label="Import path"
          />
        </label>
        <div className="row-flex">
          <button type="button" className="primary" onClick={start} disabled={!dir.trim() || !!jobKey}>
            Import
          </button>
          <PickButton purpose="importFolder" label="Choose folder…" onPicked={setDir} />
          <button type="button" onClick={onClose}>
            {jobKey ? 'Hide (keeps running)' : 'Close'}
          </button>
        </div>
        {job && <ProgressBar progress={job} onCancel={job.cancel} />}
        <ErrorMessage action="Importing" error={error} />
        {report && (
          <div className="notice" data-testid="import-report">
            <div className="prewrap">{report.summary}</div>
            <div className="small muted">
              {Object.entries(report.inserted)
                .map(([k, v]) => `${k}: ${formatCount(v)}`)
                .join(' · ')}{' '}
              · {formatCount(report.files.length)} files · {formatCount(report.skippedCount)} lines skipped
            </div>
            {report.skipped.slice(0, 5).map((s, i) => (
              <div key={i} className="small mono">
                {s.file}:{s.line} {s.reason}
              </div>
            ))}
          </div>
        )}
      </div>
    </div>
  );
}
