// The desktop app asks once for the name its reviews, PII decisions, rollbacks, corrections and
// exports are recorded under. Browser-mode curators are named by their token, so they are never asked.
import { useState } from 'react';
import { ErrorMessage } from '../../components/ErrorMessage';
import { useApi } from '../../lib/api';
import { useAsync } from '../../lib/useAsync';

export function CuratorNamePrompt() {
  const api = useApi();
  const info = useAsync(() => api.call('app.info', {}), []);
  const me = useAsync(() => api.call('curators.me', {}), []);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  if (done || info.data?.mode !== 'electron' || !me.data?.needsName) return null;
  const save = async () => {
    try {
      await api.call('curators.setLocalName', { name });
      setDone(true);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div className="overlay" role="dialog" aria-label="Your curator name" data-testid="curator-name-prompt">
      <form
        className="dialog stack"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <h2>Who is reviewing?</h2>
        <p className="small">
          Every review, PII decision, rollback, correction and export records who did it. Asked once for this workspace.
        </p>
        <input
          autoFocus
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="Your name"
          aria-label="Your name"
          maxLength={64}
        />
        <ErrorMessage action="Saving your name" error={error} />
        <button type="submit" className="primary" disabled={!name.trim()}>
          Continue
        </button>
      </form>
    </div>
  );
}
