// The keyboard shortcuts of Review, and the overlay that lists them.
import { KeyCap } from '../../components/Chip';

export const REVIEW_KEYS: { keys: string[]; label: string }[] = [
  { keys: ['a'], label: 'Approve' },
  { keys: ['r'], label: 'Reject' },
  { keys: ['Shift+R'], label: 'Reject with a reason (then 1–9 picks it)' },
  { keys: ['n'], label: 'Needs review' },
  { keys: ['s'], label: 'Skip: give the sample back to the queue and move on' },
  { keys: ['e'], label: 'Edit the sample' },
  { keys: ['u', 'Ctrl+Z'], label: 'Undo your last action (a bulk action is one action)' },
  { keys: ['j', '↓', '→'], label: 'Next sample' },
  { keys: ['k', '↑', '←'], label: 'Previous sample' },
  { keys: [']', '['], label: 'Select the next / previous PII value' },
  { keys: ['x'], label: 'Toggle the selected PII value: redact / keep (in the scope chosen under Privacy)' },
  { keys: ['1–8'], label: 'Switch views everywhere except in Review, where digits never leave (use the sidebar)' },
  { keys: ['?'], label: 'Show / hide this list' },
  { keys: ['Esc'], label: 'Close overlay or editor; leave the notes field' },
];

export function KeyOverlay({ onClose }: { onClose: () => void }) {
  return (
    <div className="overlay" onClick={onClose} role="dialog" aria-label="Keyboard shortcuts" data-testid="keys-overlay">
      <div className="dialog" onClick={(e) => e.stopPropagation()}>
        <h2>Keyboard shortcuts</h2>
        <p className="muted small">Every action is saved at once. Undo works after a reload too.</p>
        <table>
          <tbody>
            {REVIEW_KEYS.map((k) => (
              <tr key={k.label}>
                <td>
                  {k.keys.map((x) => (
                    <KeyCap key={x} k={x} />
                  ))}
                </td>
                <td>{k.label}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
