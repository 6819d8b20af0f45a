import { ExclusionsPanel } from './privacy/Exclusions';
import { ArchivePanel, RetentionPanel } from './privacy/Retention';

export function PrivacyView() {
  return (
    <div className="view" data-testid="view-privacy">
      <div className="view-header">
        <h1>Privacy &amp; retention</h1>
        <span className="muted small">
          Keep sessions, targets or accounts out of datasets and exports, purge them, prune old data, archive conversations.
        </span>
      </div>
      <div className="pane no-border stack" style={{ flex: 1 }}>
        <ExclusionsPanel />
        <div className="side-by-side">
          <RetentionPanel />
          <ArchivePanel />
        </div>
      </div>
    </div>
  );
}
