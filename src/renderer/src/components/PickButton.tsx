import { useState } from 'react';
import { useApi } from '../lib/api';

type Purpose = 'workspace' | 'importFolder' | 'importFile' | 'backupFile';

/**
 * "Choose…" opens main's native dialog (desktop app only). Main accepts a path the renderer sends
 * only when the user picked it there or it lies in an allowed folder, so in Electron this is how a
 * curator reaches folders outside the workspace. Browser mode has no native dialog: no button.
 */
export function PickButton({
  purpose,
  onPicked,
  label = 'Choose…',
}: {
  purpose: Purpose;
  onPicked: (path: string) => void;
  label?: string;
}) {
  const api = useApi();
  const [error, setError] = useState<string | null>(null);
  if (api.mode !== 'electron') return null;
  return (
    <>
      <button
        type="button"
        onClick={() => {
          setError(null);
          api.call('dialog.pick', { purpose }).then(
            (r) => r.path && onPicked(r.path),
            (e: Error) => setError(e.message),
          );
        }}
      >
        {label}
      </button>
      {error && <span className="small error-message">{error}</span>}
    </>
  );
}
