import { readableError } from '../lib/errors';

export function ErrorMessage({ action, error, onRetry }: { action: string; error: unknown; onRetry?: () => void }) {
  if (!error) return null;
  const e = readableError(action, error);
  return (
    <div className="error-message" role="alert" data-kind={e.kind}>
      <strong>{e.action} failed</strong>
      <span className="error-kind">{e.kind}</span>
      <span className="error-text">{e.message}</span>
      {onRetry && (
        <button type="button" className="link" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
