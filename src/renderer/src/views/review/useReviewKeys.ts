// Review's single-key shortcuts (listed in KeyOverlay.tsx), ignored while a dialog or a text field has them.
import { useEffect, useRef, type Dispatch, type SetStateAction } from 'react';
import { isTypingTarget } from '../../lib/keys';
import type { PiiDecisions } from './usePiiDecisions';
import type { Action, useReviewQueue } from './useReviewQueue';

export interface ReviewKeyTargets {
  /** True while an editor, a dialog or the reason picker is open. */
  blocked: boolean;
  q: ReturnType<typeof useReviewQueue>;
  pii: PiiDecisions;
  act: (action: Action) => void;
  /** Marks a key press that moves to another sample (for the switch timing). */
  mark: () => void;
  setHelp: Dispatch<SetStateAction<boolean>>;
  setPicking: (open: boolean) => void;
  setEditing: (open: boolean) => void;
}

function onReviewKey(e: KeyboardEvent, t: ReviewKeyTargets): void {
  if (t.blocked || isTypingTarget(e.target)) return;
  const { q, pii } = t;
  const k = e.key;
  if ((e.ctrlKey || e.metaKey) && k.toLowerCase() === 'z') {
    e.preventDefault();
    void q.undo();
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  switch (k) {
    case '?':
      t.setHelp((h) => !h);
      break;
    case 'Escape':
      t.setHelp(false);
      break;
    case 'a':
      t.act('approve');
      break;
    case 'r':
      t.act('reject');
      break;
    case 'R':
      if (q.current) t.setPicking(true);
      break;
    case 'n':
      t.act('needs_review');
      break;
    case 's':
      t.mark();
      q.skip();
      break;
    case 'e':
      if (q.detail) t.setEditing(true);
      break;
    case 'u':
      void q.undo();
      break;
    case 'j':
    case 'ArrowDown':
    case 'ArrowRight':
      t.mark();
      q.move(1);
      break;
    case 'k':
    case 'ArrowUp':
    case 'ArrowLeft':
      t.mark();
      q.move(-1);
      break;
    case ']':
      pii.selectNext();
      break;
    case '[':
      pii.selectPrevious();
      break;
    case 'x':
      if (pii.selectedGroup) pii.toggleGroup(pii.selectedGroup);
      break;
    default:
      return;
  }
  e.preventDefault();
}

/** One window listener for the view's life; it always sees this render's targets. */
export function useReviewKeys(targets: ReviewKeyTargets): void {
  const handler = useRef<(e: KeyboardEvent) => void>(() => undefined);
  handler.current = (e: KeyboardEvent) => onReviewKey(e, targets);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => handler.current(e);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
