// A list beside its detail with a draggable (and keyboard-movable) divider; the width is remembered
// per view, so a curator who needs a wider fact column sets it once.
import { useRef, type KeyboardEvent, type PointerEvent, type ReactNode } from 'react';
import { useStoredState } from '../lib/useAsync';

const MIN = 0.25;
const MAX = 0.75;
const clamp = (f: number) => Math.min(MAX, Math.max(MIN, f));

export function SplitPane({ id, initial = 0.5, left, right }: { id: string; initial?: number; left: ReactNode; right: ReactNode }) {
  const [fraction, setFraction] = useStoredState(`split.${id}`, initial);
  const box = useRef<HTMLDivElement>(null);
  const frac = clamp(Number.isFinite(fraction) ? fraction : initial);

  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    if (!e.currentTarget.hasPointerCapture(e.pointerId) || !box.current) return;
    const rect = box.current.getBoundingClientRect();
    setFraction(clamp((e.clientX - rect.left) / rect.width));
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = e.key === 'ArrowLeft' ? -0.02 : e.key === 'ArrowRight' ? 0.02 : 0;
    if (!step) return;
    e.preventDefault();
    setFraction(clamp(frac + step));
  };
  return (
    <div
      className="split resizable"
      ref={box}
      style={{ gridTemplateColumns: `${(frac * 100).toFixed(1)}% 6px minmax(0, 1fr)` }}
      data-testid={`split-${id}`}
    >
      {left}
      <div
        className="splitter"
        role="separator"
        aria-orientation="vertical"
        aria-label="Resize the list (← →)"
        aria-valuemin={MIN * 100}
        aria-valuemax={MAX * 100}
        aria-valuenow={Math.round(frac * 100)}
        tabIndex={0}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onKeyDown={onKeyDown}
        onDoubleClick={() => setFraction(initial)}
      />
      {right}
    </div>
  );
}
