export interface ProgressState {
  label: string;
  done: number;
  total?: number;
}

export function ProgressBar({ progress, onCancel }: { progress: ProgressState; onCancel?: () => void }) {
  const pct = progress.total ? Math.min(100, Math.round((progress.done / progress.total) * 100)) : undefined;
  return (
    <div className="progress" role="progressbar" aria-label={progress.label} aria-valuenow={pct} aria-valuemin={0} aria-valuemax={100}>
      <span className="progress-label">{progress.label}</span>
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
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      )}
    </div>
  );
}
