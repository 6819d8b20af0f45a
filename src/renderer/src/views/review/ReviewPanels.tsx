// The panels beside the sample: the team's guidelines, notes and reject reasons for the current
// sample, and the curator's last 20 decisions to jump back to.
import { memo, useState } from 'react';
import type { HistoryEntry } from '../../../../shared/contract';
import { KeyCap } from '../../components/Chip';
import { ErrorMessage } from '../../components/ErrorMessage';
import { useApi } from '../../lib/api';
import { formatCount } from '../../lib/format';
import { useAsync } from '../../lib/useAsync';
import { Markdown } from './Markdown';

export const GuidelinesPanel = memo(function GuidelinesPanel({ onEdit }: { onEdit: () => void }) {
  const api = useApi();
  const g = useAsync(() => api.call('review.guidelines', {}), []);
  const [open, setOpen] = useState(true);
  return (
    <section className="stack" style={{ gap: 4 }} data-testid="guidelines-panel">
      <div className="row-flex">
        <h3 className="grow">Guidelines</h3>
        <button type="button" className="small" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
          {open ? 'hide' : 'show'}
        </button>
        <button type="button" className="small" onClick={onEdit}>
          edit
        </button>
      </div>
      <ErrorMessage action="Loading the guidelines" error={g.error} />
      {open &&
        g.data &&
        (g.data.markdown.trim() ? (
          <div className="guidelines small">
            <Markdown text={g.data.markdown} testId="guidelines-text" />
          </div>
        ) : (
          <span className="muted small">
            No guidelines yet. Write the team's rules (Markdown) with edit; they are stored in the workspace.
          </span>
        ))}
    </section>
  );
});

export function NotesPanel({
  notes,
  onNotes,
  reasons,
  onReject,
  disabled,
}: {
  notes: string;
  onNotes: (v: string) => void;
  reasons: string[];
  onReject: (reason: string) => void;
  disabled: boolean;
}) {
  return (
    <section className="stack" style={{ gap: 4 }} data-testid="notes-panel">
      <h3>Notes</h3>
      <textarea
        rows={2}
        value={notes}
        onChange={(e) => onNotes(e.target.value)}
        placeholder="Saved with your next decision on this sample"
        aria-label="Notes for this sample"
        data-testid="review-notes"
        onKeyDown={(e) => {
          // Esc leaves the field so the review keys work again.
          if (e.key === 'Escape') (e.target as HTMLTextAreaElement).blur();
        }}
      />
      <div className="row-flex small" style={{ flexWrap: 'wrap', gap: 4 }} data-testid="reject-reasons">
        <span className="muted">
          Reject as <KeyCap k="Shift+R" />:
        </span>
        {reasons.map((r) => (
          <button key={r} type="button" className="small" disabled={disabled} onClick={() => onReject(r)}>
            {r}
          </button>
        ))}
      </div>
    </section>
  );
}

const ACTION_LABEL: Record<string, string> = {
  approve: 'approved',
  reject: 'rejected',
  needs_review: 'needs review',
  edit: 'edited',
  pii_decision: 'PII decision',
};

/** Review progress of the whole dataset; its own query, so the review view does not re-render for it. */
export const ProgressPanel = memo(function ProgressPanel() {
  const api = useApi();
  const stats = useAsync(() => api.call('dataset.stats', {}), [], { throttleMs: 3000 });
  const s = stats.data;
  const pct = s && s.total ? Math.round((s.reviewed / s.total) * 100) : 0;
  return (
    <div className="stack" style={{ gap: 4 }}>
      <h3>Progress</h3>
      <div className="bar">
        <span style={{ width: `${pct}%` }} />
      </div>
      <span className="small" data-testid="review-progress">
        {s ? `${formatCount(s.reviewed)} of ${formatCount(s.total)} reviewed (${pct}%)` : '—'}
        {s?.byStatus ? ` · ${formatCount(s.byStatus.approved ?? 0)} approved · ${formatCount(s.byStatus.rejected ?? 0)} rejected` : ''}
      </span>
      <ErrorMessage action="Loading review progress" error={stats.error} />
    </div>
  );
});

/** `version` changes after each decision or undo: the list reloads (at most twice a second). */
export const HistoryPanel = memo(function HistoryPanel({ version, onJump }: { version: number; onJump: (sampleId: string) => void }) {
  const api = useApi();
  const history = useAsync(() => api.call('review.history', { limit: 20 }), [version], { throttleMs: 500 });
  const entries: HistoryEntry[] | undefined = history.data;
  const error = history.error;
  return (
    <section className="stack" style={{ gap: 2 }} data-testid="review-history">
      <h3>My last decisions</h3>
      <ErrorMessage action="Loading your review history" error={error} />
      {entries && entries.length === 0 && <span className="muted small">None yet.</span>}
      {entries?.map((h) => (
        <button
          key={h.seq}
          type="button"
          className="small row-flex"
          style={{ textDecoration: h.undone ? 'line-through' : undefined, justifyContent: 'flex-start' }}
          title={`${new Date(h.at).toLocaleString()}${h.undone ? ' (undone)' : ''}`}
          onClick={() => onJump(h.sampleId)}
          disabled={h.count > 1}
        >
          <span className="chip">{ACTION_LABEL[h.action] ?? h.action}</span>
          <span className="nowrap">{h.count > 1 ? `${formatCount(h.count)} samples (bulk)` : h.sampleType.replace(/_/g, ' ')}</span>
          {h.reason && <span className="muted">— {h.reason}</span>}
        </button>
      ))}
    </section>
  );
});

export function ReasonPicker({ reasons, onPick, onClose }: { reasons: string[]; onPick: (reason: string) => void; onClose: () => void }) {
  return (
    <div className="overlay" role="dialog" aria-label="Reject with a reason" data-testid="reason-picker" onClick={onClose}>
      <div
        className="dialog stack"
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          const reason = reasons[Number(e.key) - 1];
          if (reason !== undefined) {
            e.preventDefault();
            e.stopPropagation();
            onPick(reason);
          } else if (e.key === 'Escape') onClose();
        }}
        tabIndex={-1}
        ref={(el) => el?.focus()}
      >
        <h2>Reject: why?</h2>
        <p className="muted small">Inside this picker the digits choose a reason; they never switch views from Review.</p>
        {reasons.map((r, i) => (
          <button key={r} type="button" onClick={() => onPick(r)}>
            <KeyCap k={String(i + 1)} /> {r}
          </button>
        ))}
        <button type="button" onClick={onClose}>
          <KeyCap k="Esc" /> cancel
        </button>
      </div>
    </div>
  );
}
