// OpenClaw's daily memory notes (memory/YYYY-MM-DD.md) of the days a session spans, shown beside its
// timeline. Read-only: imported with `reflection import daily-notes`, never edited here. Note text is
// untrusted and rendered as plain text.
import { useApiQuery } from '../../lib/queries';
import { ErrorMessage } from '../../components/ErrorMessage';

const MAX_DAYS = 62;
const DAY_MS = 86_400_000;

/** The local calendar day of a time, as OpenClaw names its notes (the gateway's local date). */
export function localDay(t: number): string {
  const d = new Date(t);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export function DailyNotesPanel({ from, to }: { from: number; to: number }) {
  // A long session shows the notes of its last MAX_DAYS days (the API's bound).
  const start = Math.max(from, to - (MAX_DAYS - 1) * DAY_MS);
  const notes = useApiQuery('notes.list', { from: localDay(start), to: localDay(Math.max(start, to)) });
  const list = notes.data ?? [];
  if (!notes.error && list.length === 0) return null;
  return (
    <details className="daily-notes" data-testid="daily-notes" style={{ marginTop: 6 }}>
      <summary className="small">
        {list.length} daily note{list.length === 1 ? '' : 's'} from these days ({[...new Set(list.map((n) => n.date))].join(', ')})
      </summary>
      <ErrorMessage action="Loading daily notes" error={notes.error} onRetry={() => void notes.refetch()} />
      {list.map((n) => (
        <div key={n.path} className="card" style={{ marginTop: 6 }} data-testid="daily-note">
          <div className="small muted" title={n.path}>
            {n.date} · {n.path.split(/[\\/]/).pop()} · read-only
          </div>
          <pre className="prewrap" style={{ maxHeight: 240, overflow: 'auto', margin: 0 }}>
            {n.content}
          </pre>
        </div>
      ))}
    </details>
  );
}
