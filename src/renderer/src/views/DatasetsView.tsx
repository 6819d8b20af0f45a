import { useState } from 'react';
import { EXPORT_FORMATS, SAMPLE_TYPES, type ExportFormat, type SampleType } from '../../../shared/domain';
import type { CollectResult, ExportRow } from '../../../shared/contract';
import { ErrorMessage } from '../components/ErrorMessage';
import { ProgressBar } from '../components/ProgressBar';
import { useApi } from '../lib/api';
import { isCancelled } from '../lib/errors';
import { dateToMs, formatBytes, formatCount } from '../lib/format';
import { startJob, useJob } from '../lib/jobs';
import { useAsync, useDebounced, useStoredState } from '../lib/useAsync';
import { ExportHistory } from './datasets/ExportHistory';
import { ExportSummaryView } from './datasets/ExportSummary';
import { StrategyForm } from './datasets/StrategyForm';
import { WriterQualityPanel } from './datasets/WriterQualityPanel';

export function DatasetsView() {
  return (
    <div className="view" data-testid="view-datasets">
      <div className="view-header">
        <h1>Datasets</h1>
        <span className="muted small">Collect samples from the recorded workspace, review them, and export training files.</span>
      </div>
      <div className="pane no-border stack" style={{ flex: 1 }}>
        <div className="side-by-side" style={{ gridTemplateColumns: 'minmax(300px, 1fr) 2fr' }}>
          <CollectPanel />
          <ExportPanel />
        </div>
        <WriterQualityPanel />
        <ExportHistory />
      </div>
    </div>
  );
}

function CollectPanel() {
  const api = useApi();
  const settings = useAsync(() => api.call('settings.get', {}), [], { live: false });
  const [type, setType] = useState<'all' | 'positive' | 'negative'>('all');
  const [autoApprove, setAutoApprove] = useState(false);
  const [dryRun, setDryRun] = useState(false);
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [session, setSession] = useState('');
  const [jobKey, setJobKey] = useState<string | null>(null);
  const job = useJob(jobKey);
  const [result, setResult] = useState<CollectResult | null>(null);
  const [error, setError] = useState<unknown>();
  const strategy = findStrategy(settings.data?.values);
  const collect = () => {
    setError(undefined);
    setResult(null);
    const j = startJob(api, 'Collecting samples', 'dataset.collect', {
      type,
      autoApprove,
      dryRun,
      sessionId: session.trim() || undefined,
      since: dateToMs(since),
      until: dateToMs(until, true),
    });
    setJobKey(j.key);
    j.promise.then(setResult, (e) => setError(isCancelled(e) ? null : e)).finally(() => setJobKey(null));
  };
  return (
    <div className="card stack" data-testid="collect-panel">
      <h2>Collect</h2>
      <div className="filters">
        <label>
          Samples
          <select value={type} onChange={(e) => setType(e.target.value as typeof type)} aria-label="Collect type">
            <option value="all">all</option>
            <option value="positive">positive</option>
            <option value="negative">negative</option>
          </select>
        </label>
        <label>
          Since
          <input type="date" value={since} onChange={(e) => setSince(e.target.value)} />
        </label>
        <label>
          Until
          <input type="date" value={until} onChange={(e) => setUntil(e.target.value)} />
        </label>
        <label>
          Session
          <input value={session} onChange={(e) => setSession(e.target.value)} placeholder="all sessions" />
        </label>
      </div>
      <label className="inline">
        <input type="checkbox" checked={autoApprove} onChange={(e) => setAutoApprove(e.target.checked)} /> Auto-approve samples that meet
        the auto-approve criteria
      </label>
      <label className="inline">
        <input type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.target.checked)} /> Dry run (count only, write nothing)
      </label>
      {strategy != null && (
        <details data-testid="strategy-details">
          <summary>Collection strategy (workbench.json)</summary>
          <StrategyForm strategy={strategy} onSaved={settings.reload} />
        </details>
      )}
      <ErrorMessage action="Loading the collection strategy" error={settings.error} />
      <div className="row-flex">
        <button type="button" className="primary" onClick={collect} disabled={!!jobKey}>
          Collect
        </button>
      </div>
      {job && <ProgressBar progress={job} onCancel={job.cancel} />}
      <ErrorMessage action="Collecting samples" error={error} />
      {result && (
        <div className="notice" data-testid="collect-result">
          {result.dryRun ? 'Dry run: would add' : 'Added'} {formatCount(result.added)} samples from {formatCount(result.scanned)} scanned (
          {formatCount(result.skippedDuplicates)} duplicates skipped) in {Math.round(result.elapsedMs)} ms.
          <div className="small muted">
            {Object.entries(result.byType)
              .map(([k, v]) => `${k}: ${v}`)
              .join(' · ')}
          </div>
        </div>
      )}
    </div>
  );
}

function findStrategy(values: Record<string, unknown> | undefined): Record<string, unknown> | null {
  const s = values?.datasetCollection;
  return s && typeof s === 'object' && !Array.isArray(s) ? (s as Record<string, unknown>) : null;
}

interface ExportForm {
  format: ExportFormat;
  name: string;
  trainSplit: number;
  onlyApproved: boolean;
  /** Also pending and needs-review samples (the default export is reviewed samples only). */
  includeUnreviewed?: boolean;
  includeBelowQuality?: boolean;
  balance?: boolean;
  splitBy?: 'session' | 'turn';
  minQuality: string;
  includePii: boolean;
  sampleTypes: SampleType[];
  since: string;
  until: string;
}

const DEFAULT_FORM: ExportForm = {
  format: 'openai',
  name: '',
  trainSplit: 0.8,
  onlyApproved: true,
  minQuality: '',
  includePii: false,
  sampleTypes: [],
  since: '',
  until: '',
};

function exportInput(f: ExportForm) {
  const minQuality = f.minQuality.trim() === '' ? undefined : Number(f.minQuality);
  return {
    format: f.format,
    name: f.name.trim() || undefined,
    trainSplit: f.trainSplit,
    onlyApproved: !f.includeUnreviewed,
    includeUnreviewed: Boolean(f.includeUnreviewed),
    includeBelowQuality: Boolean(f.includeBelowQuality),
    balance: Boolean(f.balance),
    splitBy: f.splitBy ?? 'session',
    minQuality: minQuality !== undefined && Number.isFinite(minQuality) ? minQuality : undefined,
    includePii: f.includePii,
    sampleTypes: f.sampleTypes.length ? f.sampleTypes : undefined,
    since: dateToMs(f.since),
    until: dateToMs(f.until, true),
  };
}

/** The export's settings: format, name, split, quality floor, time window and sample types. */
function ExportFormFields({ form, patch }: { form: ExportForm; patch: (p: Partial<ExportForm>) => void }) {
  return (
    <>
      <div className="filters">
        <label>
          Format
          <select value={form.format} onChange={(e) => patch({ format: e.target.value as ExportFormat })} aria-label="Export format">
            {EXPORT_FORMATS.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>
        <label>
          Name
          <input value={form.name} onChange={(e) => patch({ name: e.target.value })} placeholder="automatic" aria-label="Export name" />
        </label>
        <label>
          Train split: {Math.round(form.trainSplit * 100)}% / {100 - Math.round(form.trainSplit * 100)}%
          <input
            type="range"
            min={0}
            max={1}
            step={0.05}
            value={form.trainSplit}
            onChange={(e) => patch({ trainSplit: Number(e.target.value) })}
            aria-label="Train split"
          />
        </label>
        <label>
          Min quality
          <input
            value={form.minQuality}
            onChange={(e) => patch({ minQuality: e.target.value })}
            placeholder="0.7 (settings)"
            size={11}
            aria-label="Minimum quality"
          />
        </label>
        <label>
          Split by
          <select
            value={form.splitBy ?? 'session'}
            onChange={(e) => patch({ splitBy: e.target.value as 'session' | 'turn' })}
            aria-label="Split by"
          >
            <option value="session">session (no conversation on both sides)</option>
            <option value="turn">turn (for one or two sessions)</option>
          </select>
        </label>
        <label>
          Since
          <input type="date" value={form.since} onChange={(e) => patch({ since: e.target.value })} />
        </label>
        <label>
          Until
          <input type="date" value={form.until} onChange={(e) => patch({ until: e.target.value })} />
        </label>
      </div>
      <div className="row-flex small">
        {SAMPLE_TYPES.map((t) => (
          <label key={t} className="inline small">
            <input
              type="checkbox"
              checked={form.sampleTypes.includes(t)}
              onChange={(e) =>
                patch({ sampleTypes: e.target.checked ? [...form.sampleTypes, t] : form.sampleTypes.filter((x) => x !== t) })
              }
            />
            {t.replace(/_/g, ' ')}
          </label>
        ))}
        <span className="muted">{form.sampleTypes.length ? '' : '(all types)'}</span>
      </div>
    </>
  );
}

function ExportPanel() {
  const api = useApi();
  const [form, setForm] = useStoredState<ExportForm>('reflection.exportForm', DEFAULT_FORM);
  const patch = (p: Partial<ExportForm>) => setForm((f) => ({ ...f, ...p }));
  const settled = useDebounced(form, 300);
  const minQ = form.minQuality.trim() === '' ? null : Number(form.minQuality);
  const minQError = minQ !== null && (!Number.isFinite(minQ) || minQ < 0 || minQ > 1) ? 'Minimum quality is a number from 0 to 1.' : null;
  const nameError =
    form.name.trim() && !/^[\w.\- ]+$/.test(form.name.trim()) ? 'Use letters, digits, spaces, dot, dash or underscore.' : null;
  const preview = useAsync(() => api.call('dataset.previewExport', { ...exportInput(settled), limit: 5 }), [JSON.stringify(settled)], {
    skip: !!minQError || !!nameError,
  });
  const [jobKey, setJobKey] = useState<string | null>(null);
  const job = useJob(jobKey);
  const [written, setWritten] = useState<ExportRow | null>(null);
  const [error, setError] = useState<unknown>();
  const write = () => {
    setError(undefined);
    setWritten(null);
    const j = startJob(api, 'Exporting', 'dataset.export', exportInput(form));
    setJobKey(j.key);
    j.promise.then(setWritten, (e) => setError(isCancelled(e) ? null : e)).finally(() => setJobKey(null));
  };
  const p = preview.data;
  return (
    <div className="card stack" data-testid="export-panel">
      <h2>Export</h2>
      <ExportFormFields form={form} patch={patch} />
      <div className="row-flex">
        <label className="inline">
          <input
            type="checkbox"
            checked={Boolean(form.includeUnreviewed)}
            onChange={(e) => patch({ includeUnreviewed: e.target.checked })}
            aria-label="Include unreviewed"
          />{' '}
          Include unreviewed samples (pending, needs review)
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={Boolean(form.includeBelowQuality)}
            onChange={(e) => patch({ includeBelowQuality: e.target.checked })}
            aria-label="Include below minimum quality"
          />{' '}
          Include samples below the minimum quality
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={Boolean(form.balance)}
            onChange={(e) => patch({ balance: e.target.checked })}
            aria-label="Balance labels"
          />{' '}
          Balance labels (write / NO_WRITE)
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={form.includePii}
            onChange={(e) => patch({ includePii: e.target.checked })}
            aria-label="Include PII"
          />{' '}
          Include PII (unredacted)
        </label>
      </div>
      {minQError && <span className="field-error">{minQError}</span>}
      {nameError && <span className="field-error">{nameError}</span>}
      {form.includePii && (
        <div className="warning" data-testid="pii-warning">
          <strong>PII will be included.</strong>{' '}
          {p
            ? `${formatCount(p.withPii)} of ${formatCount(p.total)} samples contain personal data or secrets, and they will be written as they are.`
            : 'Detected personal data and secrets will be written as they are.'}{' '}
          The export records that it included PII.
        </div>
      )}
      <ErrorMessage action="Previewing the export" error={preview.error} onRetry={preview.reload} />
      {p && (
        <div className="stack" style={{ gap: 4 }} data-testid="export-preview">
          <span className="small muted">
            {formatCount(p.total)} samples ({form.includeUnreviewed ? 'reviewed and unreviewed' : 'approved and auto-approved'}
            {form.includeBelowQuality ? ', any quality' : ', at or above the minimum quality'}) → <span className="mono">{p.fileName}</span>
            . The first records, exactly as written:
          </span>
          <ol className="preview-records">
            {p.records.map((r, i) => (
              <li key={i}>{r}</li>
            ))}
            {p.records.length === 0 && <li className="muted">No sample matches these options.</li>}
          </ol>
        </div>
      )}
      <div className="row-flex">
        <button
          type="button"
          className="primary"
          onClick={write}
          disabled={!!jobKey || !!minQError || !!nameError}
          data-testid="write-export"
        >
          Write files
        </button>
        <button type="button" onClick={() => setForm(DEFAULT_FORM)}>
          Reset options
        </button>
      </div>
      {job && <ProgressBar progress={job} onCancel={job.cancel} />}
      <ErrorMessage action="Writing the export" error={error} />
      {written && (
        <div className="notice" data-testid="export-result">
          Wrote {formatCount(written.totalSamples)} samples ({formatCount(written.trainSamples)} train /{' '}
          {formatCount(written.validationSamples)} validation), {formatBytes(written.bytes)} to <span className="mono">{written.path}</span>
          {written.summary && <ExportSummaryView summary={written.summary} />}
        </div>
      )}
    </div>
  );
}
