import { useCallback } from 'react';
import { GATE_DECISIONS, type GateDecision } from '../../../shared/domain';
import type { GateDecisionRow } from '../../../shared/contract';
import { Chip } from '../components/Chip';
import { ContextList, Message, WriteInline } from '../components/Conversation';
import { ErrorMessage } from '../components/ErrorMessage';
import { Highlight, findRanges } from '../components/Highlight';
import { PagedList } from '../components/PagedList';
import { useApi } from '../lib/api';
import { dateToMs, formatTime, truncate } from '../lib/format';
import { useViewParams } from '../lib/route';
import { useApiQuery } from '../lib/queries';

const COLS = '128px 118px 96px minmax(0, 1fr) minmax(0, 1.1fr)';
const ROW_HEIGHT = 52;

export function DecisionsView() {
  const api = useApi();
  const [params, setParams] = useViewParams('decisions');
  const decision = (GATE_DECISIONS as readonly string[]).includes(params.type ?? '') ? (params.type as GateDecision) : undefined;
  const session = params.session ?? '';
  const text = params.q ?? '';
  const since = dateToMs(params.from ?? '');
  const until = dateToMs(params.to ?? '', true);
  const filterKey = JSON.stringify([decision, session, text, since, until]);
  const fetchPage = useCallback(
    async (cursor: string | undefined, signal: AbortSignal) => {
      const page = await api.call('gate.list', {
        limit: 100,
        cursor,
        decision,
        sessionId: session || undefined,
        text: text.trim() || undefined,
        since,
        until,
      });
      return { items: page.items, next: page.nextCursor };
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps -- filterKey is the JSON of the filter values used inside
    [api, filterKey],
  );
  const toggle = (d: GateDecisionRow) => setParams({ id: params.id === d.id ? undefined : d.id });
  return (
    <div className="view" data-testid="view-decisions">
      <div className="view-header">
        <h1>Decisions</h1>
        <div className="filters">
          <label>
            Decision
            <select value={decision ?? ''} onChange={(e) => setParams({ type: e.target.value })} aria-label="Decision type">
              <option value="">all</option>
              {GATE_DECISIONS.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
          </label>
          <label>
            Session
            <input value={session} onChange={(e) => setParams({ session: e.target.value })} placeholder="session id" aria-label="Session" />
          </label>
          <label>
            From
            <input type="date" value={params.from ?? ''} onChange={(e) => setParams({ from: e.target.value })} aria-label="From date" />
          </label>
          <label>
            To
            <input type="date" value={params.to ?? ''} onChange={(e) => setParams({ to: e.target.value })} aria-label="To date" />
          </label>
          <label>
            Text
            <input
              type="search"
              value={text}
              onChange={(e) => setParams({ q: e.target.value })}
              placeholder="reason, fact, message"
              aria-label="Text"
            />
          </label>
          {(decision || session || text || params.from || params.to) && (
            <button
              type="button"
              onClick={() => setParams({ type: undefined, session: undefined, q: undefined, from: undefined, to: undefined })}
            >
              Clear
            </button>
          )}
        </div>
      </div>
      <div className="view-body">
        <PagedList<GateDecisionRow, string>
          resetKey={filterKey}
          fetchPage={fetchPage}
          areas={['decisions', 'writes']}
          getKey={(d) => d.id}
          estimateSize={ROW_HEIGHT}
          // Fixed-height rows (two wrapped lines) need no layout read while scrolling; only the open row is measured.
          dynamic={(d) => d.id === params.id}
          layoutKey={params.id}
          action="Loading decisions"
          selectedKey={params.id}
          empty="No decisions match these filters."
          header={
            <div className="list-head" style={{ gridTemplateColumns: COLS }}>
              <span>Time</span>
              <span>Decision</span>
              <span>Write</span>
              <span>Fact</span>
              <span>User message</span>
            </div>
          }
          renderRow={(d) => (
            <div data-testid="decision-row">
              <div
                className="list-row auto"
                style={{ gridTemplateColumns: COLS }}
                onClick={() => toggle(d)}
                aria-expanded={params.id === d.id}
              >
                <span className="cell muted">{formatTime(d.createdAt)}</span>
                <span className="cell" data-testid="decision-type">
                  <Chip value={d.decision} />
                </span>
                <span className="cell" data-testid="decision-write">
                  {d.writeStatus ? (
                    <Chip value={d.writeStatus} />
                  ) : (
                    <span className="muted small" title="No write followed this decision">
                      no write
                    </span>
                  )}
                </span>
                <span className="cell wrap two" title={d.candidateFact ?? ''}>
                  <Highlight text={truncate(d.candidateFact, 400)} ranges={findRanges(truncate(d.candidateFact, 400), text)} />
                </span>
                <span className="cell wrap two muted" title={d.userMessage ?? ''}>
                  <Highlight text={truncate(d.userMessage, 400)} ranges={findRanges(truncate(d.userMessage, 400), text)} />
                </span>
              </div>
              {params.id === d.id && <DecisionDetail id={d.id} row={d} query={text} />}
            </div>
          )}
        />
      </div>
    </div>
  );
}

function DecisionDetail({ id, row, query }: { id: string; row: GateDecisionRow; query: string }) {
  const detail = useApiQuery('gate.show', { id });
  const d = detail.data;
  return (
    <div
      className="pad stack"
      style={{ background: 'var(--panel)', cursor: 'auto' }}
      onClick={(e) => e.stopPropagation()}
      data-testid="decision-detail"
    >
      <dl className="kv">
        <dt>Reason</dt>
        <dd className="prewrap">
          <Highlight text={row.reason} ranges={findRanges(row.reason, query)} />
        </dd>
        <dt>Fact</dt>
        <dd className="prewrap">
          {row.candidateFact ? (
            <Highlight text={row.candidateFact} ranges={findRanges(row.candidateFact, query)} />
          ) : (
            <span className="muted">none</span>
          )}
        </dd>
        <dt>Model</dt>
        <dd>
          {row.model}
          {row.latencyMs != null ? ` · ${row.latencyMs} ms` : ''}
          {row.promptTokens != null ? ` · ${row.promptTokens}+${row.completionTokens ?? 0} tokens` : ''}
        </dd>
        <dt>Session</dt>
        <dd className="mono">{row.sessionId}</dd>
      </dl>
      <ErrorMessage action="Loading the decision" error={detail.error} onRetry={() => void detail.refetch()} />
      {d && (
        <>
          <h3>Context window</h3>
          <ContextList items={d.context} />
          <h3>This turn</h3>
          <Message role="user" from={d.turn.userFrom}>
            {d.turn.userMessage}
          </Message>
          <Message role="agent">{d.turn.agentReply}</Message>
          {d.writes.map((w) => (
            <WriteInline key={w.id} w={w} />
          ))}
        </>
      )}
    </div>
  );
}
