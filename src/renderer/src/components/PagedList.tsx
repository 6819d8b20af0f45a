// A virtualized list over keyset-paged API results: only the visible rows are in the DOM, and the
// next page is fetched when the viewport nears the end of what is loaded. A million rows cost what
// the rows on screen cost.
import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent as ReactKeyboardEvent, type ReactNode, useCallback, useEffect, useRef } from 'react';
import type { DataArea } from '../../../shared/contract';
import { ErrorMessage } from './ErrorMessage';
import { usePagedLoader, type PageResult } from './usePagedLoader';

interface PagedListProps<T, C> {
  /** Changes when filters change: the list starts again from the first page. */
  resetKey: string;
  fetchPage: (cursor: C | undefined, signal: AbortSignal) => Promise<PageResult<T, C>>;
  getKey: (item: T) => string;
  renderRow: (item: T, index: number) => ReactNode;
  estimateSize: number;
  action: string;
  empty?: ReactNode;
  header?: ReactNode;
  className?: string;
  selectedKey?: string;
  onSelect?: (item: T) => void;
  /** Rows of varying height: true measures every row; a predicate measures only the rows it picks
   *  (an expanded row), so a fast scroll does not pay a layout read per row. */
  dynamic?: boolean | ((item: T) => boolean);
  /** Changes when rows change height (a row expands or collapses): measured sizes are dropped. */
  layoutKey?: string;
  /** Data areas the rows show: the list reloads when one of them changes (default: any change). */
  areas?: readonly DataArea[];
}

export function PagedList<T, C>(props: PagedListProps<T, C>) {
  const { resetKey, fetchPage, getKey, renderRow, estimateSize, action, dynamic } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const { state, loadMore, fresh, showLatest } = usePagedLoader({ resetKey, fetchPage, scrollRef, estimateSize, areas: props.areas });
  const { items, done, loading, error } = state;
  const measured = (item: T | undefined) => item !== undefined && (typeof dynamic === 'function' ? dynamic(item) : !!dynamic);
  // Stable callbacks: the virtualizer recomputes every row's offset when they change identity.
  const getKeyRef = useRef(getKey);
  getKeyRef.current = getKey;
  const getItemKey = useCallback((i: number) => (i < items.length ? getKeyRef.current(items[i]!) : '__loader'), [items]);
  const estimate = useCallback(() => estimateSize, [estimateSize]);
  const getScrollElement = useCallback(() => scrollRef.current, []);
  const virtualizer = useVirtualizer({
    count: items.length + (done ? 0 : 1),
    getScrollElement,
    estimateSize: estimate,
    overscan: 8,
    getItemKey,
  });
  useEffect(() => virtualizer.measure(), [props.layoutKey, virtualizer]);
  const virtualItems = virtualizer.getVirtualItems();
  const last = virtualItems[virtualItems.length - 1];
  useEffect(() => {
    if (last && last.index >= items.length - 20 && !done && !loading && !error) loadMore(false);
  }, [last, items.length, done, loading, error, loadMore]);

  return (
    <div className={`paged-list ${props.className ?? ''}`}>
      {props.header}
      {fresh && (
        <button type="button" className="fresh-banner" onClick={showLatest}>
          New data recorded — show latest
        </button>
      )}
      <ErrorMessage action={action} error={error} onRetry={() => loadMore(items.length === 0)} />
      <div
        ref={scrollRef}
        className="paged-list-scroll"
        data-testid="list-scroll"
        tabIndex={props.onSelect ? 0 : undefined}
        onKeyDown={props.onSelect ? (e) => moveSelection(e, props, items, virtualizer) : undefined}
        aria-label={props.onSelect ? 'list: ↑/↓ or j/k to move' : undefined}
      >
        {!loading && !error && items.length === 0 ? (
          <div className="empty">{props.empty ?? 'Nothing here yet.'}</div>
        ) : (
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualItems.map((vi) => {
              const item = items[vi.index];
              const key = item === undefined ? '__loader' : getKey(item);
              return (
                <div
                  key={vi.key}
                  data-index={vi.index}
                  ref={measured(item) ? virtualizer.measureElement : undefined}
                  className={`row${key === props.selectedKey ? ' selected' : ''}${vi.index % 2 ? ' odd' : ''}`}
                  style={{
                    position: 'absolute',
                    top: 0,
                    left: 0,
                    right: 0,
                    transform: `translateY(${vi.start}px)`,
                    height: measured(item) ? undefined : vi.size,
                  }}
                  onClick={item !== undefined && props.onSelect ? () => props.onSelect!(item) : undefined}
                  aria-selected={key === props.selectedKey}
                >
                  {item === undefined ? <div className="row-loading">Loading…</div> : renderRow(item, vi.index)}
                </div>
              );
            })}
          </div>
        )}
      </div>
    </div>
  );
}

/** With focus in the list, ↑/↓ (or k/j) move the selection, so a curator can walk the rows without the mouse. */
function moveSelection<T, C>(
  e: ReactKeyboardEvent,
  props: PagedListProps<T, C>,
  items: T[],
  virtualizer: Virtualizer<HTMLDivElement, Element>,
): void {
  const step = e.key === 'ArrowDown' || e.key === 'j' ? 1 : e.key === 'ArrowUp' || e.key === 'k' ? -1 : 0;
  if (!step || !props.onSelect) return;
  e.preventDefault();
  const at = items.findIndex((it) => props.getKey(it) === props.selectedKey);
  const next = Math.max(0, Math.min(items.length - 1, at + step));
  if (items[next] && next !== at) {
    props.onSelect(items[next]);
    virtualizer.scrollToIndex(next, { align: 'auto' });
  }
}
