import { useCallback, useEffect, useState } from 'react';
import type { SearchHit } from '../../../shared/contract';
import { Highlight } from '../components/Highlight';
import { PagedList } from '../components/PagedList';
import { useApi } from '../lib/api';
import { formatCount, formatTime } from '../lib/format';
import { hrefFor, useViewParams } from '../lib/route';
import { useDebounced } from '../lib/useAsync';

const SEARCH_LIMIT = 200;

const FIELD_LABEL: Record<SearchHit['field'], string> = {
  user_message: 'user message',
  agent_message: 'agent reply',
  reason: 'gate reason',
  candidate_fact: 'fact',
};

export function SearchView() {
  const api = useApi();
  const [params, setParams] = useViewParams('search');
  const [text, setText] = useState(params.q ?? '');
  const settled = useDebounced(text.trim(), 250);
  useEffect(() => setParams({ q: settled }), [settled, setParams]);
  const kind = params.kind === 'turn' || params.kind === 'decision' ? params.kind : undefined;
  const query = params.q ?? '';
  const [count, setCount] = useState<{ query: string; turns: number; decisions: number; capped: boolean } | null>(null);
  const fetchPage = useCallback(
    async (cursor: string | undefined) => {
      const page = await api.call('search.query', { text: query, kinds: kind ? [kind] : undefined, limit: SEARCH_LIMIT, cursor });
      // A hit is one turn or one decision; it may match in several fields (one row each).
      const turns = new Set(page.items.filter((h) => h.kind === 'turn').map((h) => h.id)).size;
      const decisions = new Set(page.items.filter((h) => h.kind === 'decision').map((h) => h.id)).size;
      setCount({ query, turns, decisions, capped: turns + decisions >= SEARCH_LIMIT });
      return { items: page.items, next: page.nextCursor };
    },
    [api, query, kind],
  );
  const shownCount = count && count.query === query ? count : null;
  return (
    <div className="view" data-testid="view-search">
      <div className="view-header">
        <h1>Search</h1>
        <input
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="Search turns, facts and reasons (中文 works)"
          style={{ minWidth: 360 }}
          autoFocus
          aria-label="Search text"
        />
        <select value={kind ?? ''} onChange={(e) => setParams({ kind: e.target.value })} aria-label="Search in">
          <option value="">turns and decisions</option>
          <option value="turn">turns only</option>
          <option value="decision">facts and reasons only</option>
        </select>
      </div>
      {query && shownCount && (
        <div className="pad small" data-testid="search-count" style={{ paddingTop: 6, paddingBottom: 6 }}>
          {formatCount(shownCount.turns + shownCount.decisions)} hit{shownCount.turns + shownCount.decisions === 1 ? '' : 's'}:{' '}
          {formatCount(shownCount.turns)} turn{shownCount.turns === 1 ? '' : 's'}, {formatCount(shownCount.decisions)} decision
          {shownCount.decisions === 1 ? '' : 's'}
          {shownCount.capped ? ` (the newest ${SEARCH_LIMIT} of each; add words to narrow it down)` : ''}
        </div>
      )}
      <div className="view-body">
        {query ? (
          <PagedList<SearchHit, string>
            resetKey={`${query}|${kind ?? ''}`}
            fetchPage={fetchPage}
            areas={['sessions', 'decisions']}
            getKey={(h) => `${h.kind}:${h.id}:${h.field}`}
            estimateSize={76}
            dynamic
            action={`Searching for “${query}”`}
            empty={`Nothing matches “${query}”.`}
            renderRow={(h) => (
              <div className="pad stack" style={{ gap: 4 }} data-testid="search-hit">
                <div className="row-flex small muted">
                  <span className="chip">{FIELD_LABEL[h.field]}</span>
                  <span>{formatTime(h.createdAt)}</span>
                  <a href={hrefFor('sessions', { id: h.sessionId, turn: h.turnId })} data-testid="search-open-turn">
                    open at this turn
                  </a>
                  {h.kind === 'decision' && <a href={hrefFor('decisions', { id: h.id, session: h.sessionId })}>decision</a>}
                </div>
                <div className="prewrap">
                  <Highlight text={h.text} ranges={h.matches.map(([start, end]) => ({ start, end }))} />
                </div>
              </div>
            )}
          />
        ) : (
          <div className="empty pad">Type at least one word. Chinese phrases of any length are matched.</div>
        )}
      </div>
    </div>
  );
}
