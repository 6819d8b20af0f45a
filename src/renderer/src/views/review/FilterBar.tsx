// Filters and sort of the review queue, and bulk actions on what the filter (or a cluster) selects.
// A bulk action is previewed with its exact count and confirmed; one undo takes it back.
import { memo, useState } from 'react';
import { MEMORY_FILES, SAMPLE_TYPES } from '../../../../shared/domain';
import { FEEDBACK_KINDS, QUEUE_SORTS, type ReviewFilter } from '../../../../shared/contract';
import { ErrorMessage } from '../../components/ErrorMessage';
import { useApi } from '../../lib/api';
import { formatCount } from '../../lib/format';
import { NARROWING_PARAMS, SORT_LABEL, STATUS_LABEL, STATUS_OPTIONS } from './filters';
import type { Action } from './useReviewQueue';

interface FilterBarProps {
  params: Record<string, string>;
  setParams: (patch: Record<string, string | undefined>) => void;
}

function Select({
  label,
  value,
  options,
  onChange,
  name,
}: {
  label: string;
  value: string;
  options: [string, string][];
  onChange: (v: string) => void;
  name: string;
}) {
  return (
    <label className="small nowrap">
      {label}{' '}
      <select value={value} onChange={(e) => onChange(e.target.value)} aria-label={label} data-testid={`filter-${name}`}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

const any = (xs: readonly string[], label = 'any'): [string, string][] => [
  ['', label],
  ...xs.map((x) => [x, x.replace(/_/g, ' ')] as [string, string]),
];

export const FilterBar = memo(function FilterBar({ params, setParams }: FilterBarProps) {
  const [session, setSession] = useState(params.session ?? '');
  const set = (key: string) => (v: string) => setParams({ [key]: v || undefined, id: undefined });
  const narrowed = NARROWING_PARAMS.some((k) => params[k]);
  return (
    <div className="row-flex small" style={{ flexWrap: 'wrap', gap: 8 }} data-testid="review-filters">
      <Select
        name="status"
        label="Queue"
        value={params.status ?? 'pending'}
        options={STATUS_OPTIONS.map((s) => [s, STATUS_LABEL[s]])}
        onChange={(v) => setParams({ status: v === 'pending' ? undefined : v, id: undefined })}
      />
      <Select name="type" label="Type" value={params.type ?? ''} options={any(SAMPLE_TYPES)} onChange={set('type')} />
      <Select
        name="minq"
        label="Quality ≥"
        value={params.minq ?? ''}
        options={[['', 'any'], ...['0.5', '0.6', '0.7', '0.8', '0.9'].map((x) => [x, x] as [string, string])]}
        onChange={set('minq')}
      />
      <Select
        name="pii"
        label="PII"
        value={params.pii ?? ''}
        options={[
          ['', 'any'],
          ['with', 'with PII'],
          ['without', 'without PII'],
        ]}
        onChange={set('pii')}
      />
      <Select name="file" label="File" value={params.file ?? ''} options={any(MEMORY_FILES)} onChange={set('file')} />
      <Select name="signal" label="Signal" value={params.signal ?? ''} options={any(FEEDBACK_KINDS)} onChange={set('signal')} />
      <label className="small nowrap">
        Session{' '}
        <input
          value={session}
          size={16}
          placeholder="session key"
          onChange={(e) => setSession(e.target.value)}
          onBlur={() => setParams({ session: session.trim() || undefined, id: undefined })}
          onKeyDown={(e) => {
            if (e.key === 'Enter') setParams({ session: session.trim() || undefined, id: undefined });
            if (e.key === 'Escape') (e.target as HTMLInputElement).blur();
          }}
          aria-label="Session"
          data-testid="filter-session"
        />
      </label>
      <Select
        name="sort"
        label="Sort"
        value={params.sort ?? 'newest'}
        options={QUEUE_SORTS.map((s) => [s, SORT_LABEL[s]])}
        onChange={(v) => setParams({ sort: v === 'newest' ? undefined : v, id: undefined })}
      />
      {params.cluster && (
        <span className="chip nowrap" data-testid="filter-cluster">
          cluster {params.cluster.slice(-6)}{' '}
          <button type="button" className="small" onClick={() => setParams({ cluster: undefined })} aria-label="Leave the cluster">
            ×
          </button>
        </span>
      )}
      {narrowed && (
        <button
          type="button"
          className="small"
          onClick={() => {
            setSession('');
            setParams(Object.fromEntries(NARROWING_PARAMS.map((k) => [k, undefined])));
          }}
        >
          clear filters
        </button>
      )}
    </div>
  );
});

const ACTION_TEXT: Record<Action, string> = { approve: 'Approve', reject: 'Reject', needs_review: 'Mark needs review' };

/** "Approve all 37": counts first (dry run), then asks, then runs as one undoable batch. */
export const BulkActions = memo(function BulkActions({
  filter,
  total,
  onRun,
}: {
  filter: ReviewFilter;
  total: number | null;
  onRun: (action: Action) => Promise<number | null>;
}) {
  const api = useApi();
  const [confirm, setConfirm] = useState<{ action: Action; count: number } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const ask = async (action: Action) => {
    try {
      const r = await api.call('review.bulk', { filter, action, dryRun: true });
      setConfirm({ action, count: r.count });
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div className="row-flex small" style={{ gap: 6 }} data-testid="bulk-actions">
      <span className="muted nowrap">All {total == null ? '…' : formatCount(total)} in this queue:</span>
      {(['approve', 'reject', 'needs_review'] as const).map((a) => (
        <button key={a} type="button" className="small" disabled={!total} onClick={() => void ask(a)} data-testid={`bulk-${a}`}>
          {ACTION_TEXT[a].toLowerCase()}
        </button>
      ))}
      <ErrorMessage action="Counting the bulk action" error={error} />
      {confirm && (
        <div className="overlay" role="dialog" aria-label="Confirm bulk action" data-testid="bulk-confirm">
          <div className="dialog stack">
            <h2>
              {ACTION_TEXT[confirm.action]} {formatCount(confirm.count)} samples?
            </h2>
            <p className="small">
              Every sample this queue's filter selects right now gets this label. One undo (<b>u</b>) takes the whole batch back.
            </p>
            <div className="row-flex">
              <button
                type="button"
                className="primary"
                disabled={busy || confirm.count === 0}
                onClick={async () => {
                  setBusy(true);
                  await onRun(confirm.action);
                  setBusy(false);
                  setConfirm(null);
                }}
              >
                {busy ? 'Working…' : `${ACTION_TEXT[confirm.action]} ${formatCount(confirm.count)}`}
              </button>
              <button type="button" onClick={() => setConfirm(null)}>
                Cancel
              </button>
            </div>
          </div>
        </div>
      )}
    </div>
  );
});
