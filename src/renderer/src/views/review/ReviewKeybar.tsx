// The row of buttons under the sample: every key of Review, for the mouse.
import { KeyCap } from '../../components/Chip';
import type { PiiDecisions } from './usePiiDecisions';
import type { Action, useReviewQueue } from './useReviewQueue';

export interface ReviewKeybarProps {
  q: ReturnType<typeof useReviewQueue>;
  pii: PiiDecisions;
  act: (action: Action) => void;
  onEdit: () => void;
  onHelp: () => void;
}

export function ReviewKeybar({ q, pii, act, onEdit, onHelp }: ReviewKeybarProps) {
  const { groups, selectedGroup } = pii;
  return (
    <div className="keybar" data-testid="keybar">
      <button type="button" onClick={() => act('approve')} disabled={!q.current}>
        <KeyCap k="a" /> approve
      </button>
      <button type="button" onClick={() => act('reject')} disabled={!q.current}>
        <KeyCap k="r" /> reject
      </button>
      <button type="button" onClick={() => act('needs_review')} disabled={!q.current}>
        <KeyCap k="n" /> needs review
      </button>
      <button type="button" onClick={() => q.skip()} disabled={!q.current}>
        <KeyCap k="s" /> skip
      </button>
      <button type="button" onClick={onEdit} disabled={!q.detail}>
        <KeyCap k="e" /> edit
      </button>
      <button type="button" onClick={() => void q.undo()}>
        <KeyCap k="u" /> undo
      </button>
      <button type="button" onClick={() => q.move(-1)} disabled={q.pos === 0}>
        <KeyCap k="k" /> previous
      </button>
      <button type="button" onClick={() => q.move(1)} disabled={q.pos >= q.rows.length - 1}>
        <KeyCap k="j" /> next
      </button>
      {groups.length > 0 && (
        <>
          <button type="button" onClick={pii.selectNext}>
            <KeyCap k="]" /> next PII
          </button>
          <button type="button" onClick={() => selectedGroup && pii.toggleGroup(selectedGroup)}>
            <KeyCap k="x" /> redact / keep
          </button>
        </>
      )}
      <span className="grow" />
      <button type="button" onClick={onHelp}>
        <KeyCap k="?" /> all keys
      </button>
    </div>
  );
}
