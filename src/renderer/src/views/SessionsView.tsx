import { useCallback } from 'react';
import type { SessionRow, TurnView } from '../../../shared/contract';
import { ErrorMessage } from '../components/ErrorMessage';
import { SplitPane } from '../components/SplitPane';
import { VisibleText } from '../components/VisibleText';
import { TurnCard } from '../components/Conversation';
import { PagedList } from '../components/PagedList';
import { useApi } from '../lib/api';
import { formatCount, formatRelative, formatTime } from '../lib/format';
import { useViewParams } from '../lib/route';
import { useApiQuery } from '../lib/queries';
import { SessionRollbackFlow } from './writes/SessionRollbackFlow';
import { DailyNotesPanel } from './sessions/DailyNotesPanel';

const COLS = '1.1fr 1.3fr 70px 110px';

export function SessionsView() {
  const api = useApi();
  const [params, setParams] = useViewParams('sessions');
  const text = params.q ?? '';
  const fetchPage = useCallback(
    async (cursor: string | undefined, signal: AbortSignal) => {
      const page = await api.call('sessions.list', { limit: 100, cursor, text: text || undefined });
      return { items: page.items, next: page.nextCursor };
    },
    [api, text],
  );
  return (
    <div className="view" data-testid="view-sessions">
      <div className="view-header">
        <h1>Sessions</h1>
        <input
          type="search"
          placeholder="Filter by channel or target"
          value={text}
          onChange={(e) => setParams({ q: e.target.value, id: params.id })}
          aria-label="Filter sessions"
        />
      </div>
      <SplitPane
        id="sessions"
        initial={0.4}
        left={
          <PagedList<SessionRow, string>
            resetKey={text}
            fetchPage={fetchPage}
            areas={['sessions', 'exclusions']}
            getKey={(s) => s.id}
            estimateSize={38}
            action="Loading sessions"
            selectedKey={params.id}
            onSelect={(s) => setParams({ id: s.id, turn: undefined, rollback: undefined }, true)}
            empty="No sessions recorded yet."
            header={
              <div className="list-head" style={{ gridTemplateColumns: COLS }}>
                <span>Channel</span>
                <span>Target</span>
                <span>Turns</span>
                <span>Last activity</span>
              </div>
            }
            renderRow={(s) => (
              <div className="list-row" style={{ gridTemplateColumns: COLS }} data-testid="session-row">
                <span className="cell">{s.channelId}</span>
                <span className="cell" title={s.id}>
                  <VisibleText text={s.conversationTarget ?? s.id} />
                </span>
                <span className="cell">{formatCount(s.turnCount)}</span>
                <span className="cell muted" title={formatTime(s.lastActivityAt)}>
                  {formatRelative(s.lastActivityAt)}
                </span>
              </div>
            )}
          />
        }
        right={
          <div className="pane" style={{ padding: 0, display: 'flex', flexDirection: 'column' }}>
            {params.id ? <SessionTimeline id={params.id} /> : <div className="empty pad">Select a session to read its timeline.</div>}
          </div>
        }
      />
    </div>
  );
}

function SessionTimeline({ id }: { id: string }) {
  const api = useApi();
  const [params, setParams] = useViewParams('sessions');
  // A search hit links here with the matching turn: the timeline starts at that turn.
  const fromTurn = params.turn || undefined;
  const detail = useApiQuery('sessions.get', { id });
  const fetchPage = useCallback(
    async (cursor: string | undefined, signal: AbortSignal) => {
      const page = await api.call('turns.list', { sessionId: id, limit: 50, cursor, fromTurn: cursor ? undefined : fromTurn });
      return { items: page.items, next: page.nextCursor };
    },
    [api, id, fromTurn],
  );
  const s = detail.data;
  return (
    <>
      <div className="pad" style={{ borderBottom: '1px solid var(--border)' }}>
        <ErrorMessage action="Loading the session" error={detail.error} onRetry={() => void detail.refetch()} />
        <h2 className="prewrap">
          <VisibleText text={s?.conversationTarget ?? id} />
        </h2>
        {s && (
          <div className="muted small">
            {s.channelId} · {formatCount(s.turnCount)} turns · {formatCount(s.decisionCount)} decisions · {formatCount(s.writeCount)} writes
            · since {formatTime(s.createdAt)}
            {s.excluded ? ' · excluded from datasets' : ''}
          </div>
        )}
        {s && <DailyNotesPanel from={s.createdAt} to={s.lastActivityAt} />}
        {s && s.writeCount > 0 && !params.rollback && (
          <button type="button" style={{ marginTop: 6 }} onClick={() => setParams({ rollback: '1' })}>
            Roll back this session’s writes…
          </button>
        )}
      </div>
      {params.rollback && (
        <div className="pad" style={{ borderBottom: '1px solid var(--border)', maxHeight: '60%', overflow: 'auto' }}>
          <SessionRollbackFlow sessionId={id} onClose={() => setParams({ rollback: undefined })} />
        </div>
      )}
      {fromTurn && (
        <div className="session-banner" data-testid="from-turn-banner">
          Showing the timeline from the matching turn.{' '}
          <button type="button" className="link" onClick={() => setParams({ turn: undefined })}>
            Show from the first turn
          </button>
        </div>
      )}
      <PagedList<TurnView, string>
        resetKey={`${id}|${fromTurn ?? ''}`}
        fetchPage={fetchPage}
        areas={['sessions', 'decisions', 'writes']}
        getKey={(t) => t.id}
        estimateSize={220}
        dynamic
        action="Loading the session timeline"
        className="timeline"
        empty="This session has no turns."
        renderRow={(t) => (
          <div
            style={{ padding: '6px 12px' }}
            className={t.id === fromTurn ? 'focused-turn' : undefined}
            data-focused={t.id === fromTurn ? 'true' : undefined}
          >
            <TurnCard turn={t} decisions={t.decisions} writes={t.writes} />
          </div>
        )}
      />
    </>
  );
}
