export interface ProgressState {
  label: string;
  done: number;
  total?: number | null;
  /** Cancel was asked for and the work has not stopped yet. */
  cancelling?: boolean;
}

export function ProgressBar({ progress, onCancel }: { progress: ProgressState; onCancel?: () => void }) {
  const pct = progress.total ? Math.min(100, Math.round((progress.done / progress.total) * 100)) : undefined;
  const label = progress.cancelling ? `Cancelling · ${progress.label}` : progress.label;
  return (
    <div className="progress" role="progressbar" aria-label={label} aria-valuenow={pct} aria-valuemin={0} aria-valuemax={100}>
      <span className="progress-label" title={label}>
        {label}
      </span>
      <span className={`progress-track${pct === undefined ? ' indeterminate' : ''}`}>
        <span className="progress-fill" style={{ width: pct === undefined ? '30%' : `${pct}%` }} />
      </span>
      <span className="progress-count">
        {progress.total
          ? `${progress.done.toLocaleString('en-US')} / ${progress.total.toLocaleString('en-US')}`
          : progress.done
            ? progress.done.toLocaleString('en-US')
            : ''}
      </span>
      {onCancel && (
        <button
          type="button"
          onClick={onCancel}
          disabled={progress.cancelling}
          title={progress.cancelling ? 'Stopping: the job ends its current step first' : undefined}
        >
          {progress.cancelling ? 'Stopping…' : 'Cancel'}
        </button>
      )}
    </div>
  );
}
