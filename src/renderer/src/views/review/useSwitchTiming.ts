// Key press to next sample on screen, measured after the commit at the next frame (bench/ui.ts reads it).
import { useCallback, useLayoutEffect, useRef, useState } from 'react';

/** `detailId`: the sample on screen; timed once per sample shown, so a refreshed detail of the same sample is no switch. */
export function useSwitchTiming(detailId: string | undefined) {
  const keyAt = useRef<number | null>(null);
  const [lastSwitchMs, setLastSwitchMs] = useState<number | null>(null);
  useLayoutEffect(() => {
    const t0 = keyAt.current;
    if (t0 == null || !detailId) return;
    keyAt.current = null;
    requestAnimationFrame(() => {
      const ms = performance.now() - t0;
      (window.__reviewTimings ??= []).push(ms);
      setLastSwitchMs(ms);
    });
  }, [detailId]);
  /** Marks the key press that should bring the next sample. */
  const mark = useCallback(() => {
    keyAt.current = performance.now();
  }, []);
  return { mark, lastSwitchMs };
}
