// Settings for review: the team's guidelines (Markdown, with a live safe preview) and the reject
// reasons offered in Review. Both are stored in the workspace, so every curator sees the same ones.
import { useEffect, useState } from 'react';
import { ErrorMessage } from '../../components/ErrorMessage';
import { useApi } from '../../lib/api';
import { Markdown } from './Markdown';

export function ReviewSettingsPanel({ onSaved }: { onSaved?: () => void }) {
  const api = useApi();
  const [markdown, setMarkdown] = useState<string | null>(null);
  const [reasons, setReasons] = useState('');
  const [error, setError] = useState<{ action: string; error: unknown } | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    Promise.all([api.call('review.guidelines', {}), api.call('review.settings', {})]).then(
      ([g, s]) => {
        setMarkdown(g.markdown);
        setReasons(s.rejectReasons.join('\n'));
      },
      (e) => setError({ action: 'Loading the review settings', error: e }),
    );
  }, [api]);
  const save = async () => {
    setSaved(false);
    try {
      await api.call('review.setGuidelines', { markdown: markdown ?? '' });
      await api.call('review.setSettings', {
        rejectReasons: reasons
          .split('\n')
          .map((x) => x.trim())
          .filter(Boolean),
      });
      setError(null);
      setSaved(true);
      onSaved?.();
    } catch (e) {
      setError({ action: 'Saving the review settings', error: e });
    }
  };
  if (markdown == null) return error ? <ErrorMessage action={error.action} error={error.error} /> : <span className="muted">Loading…</span>;
  return (
    <section className="stack" data-testid="review-settings">
      <h2>Review guidelines</h2>
      <p className="muted small">Markdown, shown beside every sample in Review. HTML is shown as text, never run.</p>
      <div className="side-by-side" style={{ display: 'flex', gap: 12 }}>
        <textarea
          className="mono grow"
          rows={14}
          style={{ flex: 1 }}
          value={markdown}
          onChange={(e) => {
            setMarkdown(e.target.value);
            setSaved(false);
          }}
          aria-label="Guidelines (Markdown)"
          data-testid="guidelines-editor"
        />
        <div style={{ flex: 1, overflow: 'auto', maxHeight: 320 }} className="pane small">
          <Markdown text={markdown} testId="guidelines-preview" />
        </div>
      </div>
      <h3>Reject reasons</h3>
      <p className="muted small">One per line, at most 9 (Shift+R then 1–9 in Review).</p>
      <textarea
        rows={6}
        value={reasons}
        onChange={(e) => {
          setReasons(e.target.value);
          setSaved(false);
        }}
        aria-label="Reject reasons, one per line"
        data-testid="reasons-editor"
      />
      {error && <ErrorMessage action={error.action} error={error.error} />}
      <div className="row-flex">
        <button type="button" className="primary" onClick={() => void save()} data-testid="review-settings-save">
          Save
        </button>
        {saved && (
          <span className="small" role="status">
            Saved.
          </span>
        )}
      </div>
    </section>
  );
}
