// Conversation pieces shared by sessions, decisions, writes and review. All text goes in as React
// text children: untrusted conversation content can never become markup.
import { useState, type ReactNode } from 'react';
import type { AuditRow, ContextItemDto, GateDecisionRow, TurnDto } from '../../../shared/contract';
import { formatTime } from '../lib/format';
import { hrefFor } from '../lib/route';
import { useApiQuery } from '../lib/queries';
import { Chip, LineCounts } from './Chip';
import { ErrorMessage } from './ErrorMessage';
import { VisibleText } from './VisibleText';

export function Message({ role, children, from }: { role: 'user' | 'agent'; children: ReactNode; from?: string | null }) {
  return (
    <div className={`msg msg-${role}`}>
      <div className="msg-role">
        {role === 'user' ? (
          <>
            user
            {from ? (
              <>
                {' '}
                · <VisibleText text={from} />
              </>
            ) : null}
          </>
        ) : (
          'agent'
        )}
      </div>
      <div className="prewrap">{typeof children === 'string' ? <VisibleText text={children} /> : children}</div>
    </div>
  );
}

export function ContextList({ items }: { items: ContextItemDto[] }) {
  if (items.length === 0) return <div className="muted small">The context window is empty.</div>;
  return (
    <div data-testid="context-window">
      {items.map((c) => (
        <Message key={c.id} role={c.role}>
          {c.message}
        </Message>
      ))}
    </div>
  );
}

/** The context window the gate saw, fetched only when opened. */
export function LazyContext({ turnId, initial }: { turnId: string; initial?: ContextItemDto[] }) {
  const [open, setOpen] = useState(false);
  const ctx = useApiQuery('context.get', { turnId }, { skip: !open || !!initial, live: false });
  const items = initial ?? ctx.data;
  return (
    <details onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>Context window{items ? ` (${items.length} messages)` : ''}</summary>
      <ErrorMessage action="Loading the context window" error={ctx.error} />
      {open && (items ? <ContextList items={items} /> : !ctx.error && <div className="muted small">Loading…</div>)}
    </details>
  );
}

export function DecisionInline({ d }: { d: GateDecisionRow }) {
  return (
    <div className="inline-outcome" data-testid="decision-inline">
      <span className="muted small">memory_gate</span>
      <Chip value={d.decision} />
      {d.candidateFact && (
        <span className="prewrap">
          <strong>Fact:</strong> <VisibleText text={d.candidateFact} />
        </span>
      )}
      <span className="muted prewrap">
        <VisibleText text={d.reason} />
      </span>
      <a className="small" href={hrefFor('decisions', { id: d.id, session: d.sessionId })}>
        open
      </a>
    </div>
  );
}

export function WriteInline({ w }: { w: AuditRow }) {
  return (
    <div className="inline-outcome" style={{ borderLeftColor: 'var(--ok)' }} data-testid="write-inline">
      <span className="muted small">write_guardian</span>
      <Chip value={w.status} />
      <span className="mono">{w.targetFile}</span>
      <LineCounts changes={w.lineChanges} />
      {w.reason && (
        <span className="muted prewrap">
          <VisibleText text={w.reason} />
        </span>
      )}
      <a className="small" href={hrefFor('writes', { id: w.id })}>
        diff
      </a>
    </div>
  );
}

export function TurnCard({
  turn,
  decisions,
  writes,
  context,
}: {
  turn: TurnDto;
  decisions: GateDecisionRow[];
  writes: AuditRow[];
  context?: ContextItemDto[];
}) {
  return (
    <div className="turn" data-testid="turn">
      <div className="turn-head">
        <strong>Turn {turn.turnNumber}</strong>
        <span>{formatTime(turn.createdAt)}</span>
      </div>
      <Message role="user" from={turn.userFrom}>
        {turn.userMessage}
      </Message>
      <Message role="agent">{turn.agentReply}</Message>
      <LazyContext turnId={turn.id} initial={context} />
      {decisions.map((d) => (
        <DecisionInline key={d.id} d={d} />
      ))}
      {writes.map((w) => (
        <WriteInline key={w.id} w={w} />
      ))}
      {decisions.length === 0 && writes.length === 0 && <div className="muted small">No gate decision recorded for this turn.</div>}
    </div>
  );
}
