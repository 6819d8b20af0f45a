// The review guidelines and reject reasons, edited in a dialog over the queue.
import { ReviewSettingsPanel } from './ReviewSettingsPanel';

export function GuidelinesDialog({ onSaved, onClose }: { onSaved: () => void; onClose: () => void }) {
  return (
    <div className="overlay" role="dialog" aria-label="Edit the review guidelines">
      <div className="dialog stack" style={{ width: 900 }}>
        <ReviewSettingsPanel onSaved={onSaved} />
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
