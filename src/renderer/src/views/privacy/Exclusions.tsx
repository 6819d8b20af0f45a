// Opt-out: the exclusions list, adding and lifting one, and the irreversible purge. A purge always
// shows its dry-run counts first and needs a second, explicit click; the server refuses it without confirm.
import { useState } from 'react';
import type { ExclusionDto, ExclusionKind, PurgeOutcome } from '../../../../shared/contract';
import { ErrorMessage } from '../../components/ErrorMessage';
import { useApi } from '../../lib/api';
import { formatCount, formatTime } from '../../lib/format';
import { useAction, useAsync } from '../../lib/useAsync';

const KINDS: { kind: ExclusionKind; label: string; placeholder: string }[] = [
  { kind: 'session', label: 'session', placeholder: 'session key, e.g. channel:discord:123' },
  { kind: 'target', label: 'channel target', placeholder: '<channel>:<target>' },
  { kind: 'account', label: 'account', placeholder: 'account id' },
];

export function CountsTable({ counts, testId }: { counts: Record<string, number>; testId: string }) {
  const rows = Object.entries(counts).filter(([, n]) => n > 0);
  if (!rows.length)
    return (
      <span className="small muted" data-testid={testId}>
        No rows.
      </span>
    );
  return (
    <table className="data-table counts" data-testid={testId}>
      <tbody>
        {rows.map(([table, n]) => (
          <tr key={table}>
            <td className="mono">{table}</td>
            <td>{formatCount(n)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ExclusionsPanel() {
  const api = useApi();
  const list = useAsync(() => api.call('exclusions.list', {}), []);
  const [kind, setKind] = useState<ExclusionKind>('session');
  const [value, setValue] = useState('');
  const [reason, setReason] = useState('');
  // An exclusion that matches no session yet is kept (a target's later sessions will match), but a
  // typo would silently exclude nothing: say so.
  const [unmatched, setUnmatched] = useState<ExclusionDto | null>(null);
  const add = useAction(async () => {
    const added = await api.call('exclusions.add', { kind, value: value.trim(), reason: reason.trim() || undefined });
    setUnmatched(added.sessions === 0 ? added : null);
    setValue('');
    setReason('');
    list.reload();
  });
  const remove = useAction(async (id: string) => {
    await api.call('exclusions.remove', { id });
    list.reload();
  });
  const [purging, setPurging] = useState<{ id: string; preview?: PurgeOutcome; done?: PurgeOutcome } | null>(null);
  const purge = useAction(async (id: string, confirm: boolean) => {
    if (!confirm) {
      setPurging({ id });
      const preview = await api.call('exclusions.purge', { id, dryRun: true });
      setPurging({ id, preview });
    } else {
      const done = await api.call('exclusions.purge', { id, confirm: true });
      setPurging({ id, done });
      list.reload();
    }
  });
  const items = list.data ?? [];
  const placeholder = KINDS.find((k) => k.kind === kind)!.placeholder;
  return (
    <div className="card stack" data-testid="exclusions-panel">
      <h2>Excluded from collection and export</h2>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim()) void add.run();
        }}
      >
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.target.value as ExclusionKind)} aria-label="Exclusion kind">
            {KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </select>
        </label>
        <label className="grow">
          Value
          <input value={value} onChange={(e) => setValue(e.target.value)} placeholder={placeholder} aria-label="Exclusion value" />
        </label>
        <label className="grow">
          Reason
          <input value={reason} onChange={(e) => setReason(e.target.value)} placeholder="optional" aria-label="Exclusion reason" />
        </label>
        <button type="submit" className="primary" disabled={!value.trim() || add.pending}>
          Exclude
        </button>
      </form>
      <ErrorMessage action="Adding the exclusion" error={add.error} />
      {unmatched && (
        <div className="warning" data-testid="exclusion-unmatched">
          The {unmatched.kind} exclusion “{unmatched.value}” matches 0 sessions recorded so far. Check the spelling
          {unmatched.kind === 'target' ? ' (a target is "<channel>:<target>")' : ''}; it will still apply to matching sessions recorded
          later.
        </div>
      )}
      <ErrorMessage action="Loading exclusions" error={list.error} onRetry={list.reload} />
      <ErrorMessage action="Removing the exclusion" error={remove.error} />
      <ErrorMessage action="Purging" error={purge.error} />
      <table className="data-table" data-testid="exclusions-table">
        <thead>
          <tr>
            <th>Kind</th>
            <th>Value</th>
            <th>Reason</th>
            <th>Created</th>
            <th>Sessions</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {items.map((x) => (
            <ExclusionRow
              key={x.id}
              x={x}
              busy={remove.pending || purge.pending}
              onRemove={() => void remove.run(x.id)}
              onPurge={() => void purge.run(x.id, false)}
            />
          ))}
          {!items.length && !list.loading && (
            <tr>
              <td colSpan={6} className="muted">
                Nothing is excluded.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {purging && (
        <PurgeConfirm
          state={purging}
          exclusion={items.find((x) => x.id === purging.id) ?? purging.done?.exclusion}
          pending={purge.pending}
          onConfirm={() => void purge.run(purging.id, true)}
          onClose={() => setPurging(null)}
        />
      )}
    </div>
  );
}

function ExclusionRow({ x, busy, onRemove, onPurge }: { x: ExclusionDto; busy: boolean; onRemove: () => void; onPurge: () => void }) {
  return (
    <tr data-testid="exclusion-row" data-exclusion-id={x.id}>
      <td>{x.kind}</td>
      <td className="mono">{x.value}</td>
      <td>{x.reason ?? <span className="muted">—</span>}</td>
      <td className="nowrap">{formatTime(x.createdAt)}</td>
      <td>{formatCount(x.sessions)}</td>
      <td className="nowrap">
        <button type="button" disabled={busy} onClick={onRemove}>
          Remove
        </button>{' '}
        <button type="button" disabled={busy} onClick={onPurge}>
          Purge…
        </button>
      </td>
    </tr>
  );
}

function PurgeConfirm({
  state,
  exclusion,
  pending,
  onConfirm,
  onClose,
}: {
  state: { preview?: PurgeOutcome; done?: PurgeOutcome };
  exclusion: ExclusionDto | undefined;
  pending: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const [understood, setUnderstood] = useState(false);
  const what = exclusion ? `${exclusion.kind} ${exclusion.value}` : 'this exclusion';
  if (state.done) {
    return (
      <div className="notice stack" data-testid="purge-done">
        <span>
          Purged {formatCount(state.done.sessionIds.length)} sessions of {what}.
        </span>
        <CountsTable counts={state.done.deleted} testId="purge-deleted" />
        <div>
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
    );
  }
  const p = state.preview;
  return (
    <div className="warning stack" data-testid="purge-preview">
      <strong>Purge everything recorded for {what}?</strong>
      {!p ? (
        <span className="small muted">Counting what a purge would delete…</span>
      ) : (
        <>
          <span>
            Dry run: {formatCount(p.sessionIds.length)} {p.sessionIds.length === 1 ? 'session' : 'sessions'}; these rows would be deleted
            (nothing has been deleted yet). This cannot be undone.
          </span>
          <CountsTable counts={p.deleted} testId="purge-counts" />
          <label className="inline">
            <input
              type="checkbox"
              checked={understood}
              onChange={(e) => setUnderstood(e.target.checked)}
              aria-label="I understand the purge is irreversible"
            />{' '}
            I understand this deletes the data permanently
          </label>
        </>
      )}
      <div className="row-flex">
        <button type="button" className="danger" disabled={!p || !understood || pending} onClick={onConfirm}>
          Purge permanently
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </div>
  );
}
