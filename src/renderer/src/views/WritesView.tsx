import { useCallback } from 'react';
import {
  AUDIT_SOURCES,
  AUDIT_STATUSES,
  MEMORY_FILES,
  type AuditSource,
  type AuditStatus,
  type MemoryFileName,
} from '../../../shared/domain';
import type { AuditRow } from '../../../shared/contract';
import { Chip, LineCounts } from '../components/Chip';
import { PagedList } from '../components/PagedList';
import { SplitPane } from '../components/SplitPane';
import { VisibleText } from '../components/VisibleText';
import { useApi } from '../lib/api';
import { formatShortTime, formatTime, truncate } from '../lib/format';
import { hrefFor, useViewParams } from '../lib/route';
import { WriteDetail } from './writes/WriteDetail';
import { loadWriteFlags, SecretBadge } from './health/SecretFlags';

const COLS = '86px 86px 90px minmax(0, 1fr) 40px';
const ROW_HEIGHT = 52;

export function WritesView() {
  const api = useApi();
  const [params, setParams] = useViewParams('writes');
  const status = (AUDIT_STATUSES as readonly string[]).includes(params.status ?? '') ? (params.status as AuditStatus) : undefined;
  const file = (MEMORY_FILES as readonly string[]).includes(params.file ?? '') ? (params.file as MemoryFileName) : undefined;
  const source = (AUDIT_SOURCES as readonly string[]).includes(params.source ?? '') ? (params.source as AuditSource) : undefined;
  const session = params.session || undefined;
  const filterKey = JSON.stringify([status, file, source, session]);
  const fetchPage = useCallback(
    async (cursor: string | undefined, signal: AbortSignal) => {
      const page = await api.call('guardian.list', { limit: 100, cursor, status, file, source, sessionId: session });
      await loadWriteFlags(
        api,
        page.items.map((a) => a.id),
      );
      return { items: page.items, next: page.nextCursor };
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps -- filterKey is the JSON of the filter values used inside
    [api, filterKey],
  );
  return (
    <div className="view" data-testid="view-writes">
      <div className="view-header">
        <h1>Writes</h1>
        <div className="filters">
          <label>
            Status
            <select value={status ?? ''} onChange={(e) => setParams({ status: e.target.value })} aria-label="Status">
              <option value="">all</option>
              {AUDIT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <label>
            File
            <select value={file ?? ''} onChange={(e) => setParams({ file: e.target.value })} aria-label="File">
              <option value="">all</option>
              {MEMORY_FILES.map((f) => (
                <option key={f} value={f}>
                  {f}
                </option>
              ))}
            </select>
          </label>
          <label>
            Source
            <select value={source ?? ''} onChange={(e) => setParams({ source: e.target.value })} aria-label="Source">
              <option value="">all</option>
              {AUDIT_SOURCES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          {session && (
            <span className="row-flex small">
              <span className="muted">
                session <span className="mono">{session}</span>
              </span>
              <a href={hrefFor('sessions', { id: session, rollback: '1' })}>Roll back this session’s writes…</a>
              <button type="button" className="link" onClick={() => setParams({ session: undefined })}>
                all sessions
              </button>
            </span>
          )}
        </div>
      </div>
      <SplitPane
        id="writes"
        initial={0.55}
        left={
          <PagedList<AuditRow, string>
            resetKey={filterKey}
            fetchPage={fetchPage}
            areas={['writes']}
            getKey={(a) => a.id}
            estimateSize={ROW_HEIGHT}
            // Two wrapped lines fit the fixed height; rows that say what they undid, and the open one, are measured.
            dynamic={(a) => a.id === params.id || !!a.undid}
            layoutKey={params.id}
            action="Loading writes"
            selectedKey={params.id}
            onSelect={(a) => setParams({ id: a.id, tab: undefined, v: undefined }, true)}
            empty="No writes recorded yet."
            header={
              <div className="list-head" style={{ gridTemplateColumns: COLS }}>
                <span>Time</span>
                <span>Status</span>
                <span>File</span>
                <span>Fact</span>
                <span>Lines</span>
              </div>
            }
            renderRow={(a) => <WriteRow a={a} />}
          />
        }
        right={
          <div className="pane">
            {params.id ? <WriteDetail id={params.id} /> : <div className="empty">Select a write to see its diff.</div>}
          </div>
        }
      />
    </div>
  );
}

/** One write: the fact wraps (three lines; all of it when selected, and in the tooltip), and a rollback says what it undid. */
function WriteRow({ a }: { a: AuditRow }) {
  const fact = a.candidateFact ?? a.reason ?? '';
  const undid = a.undid;
  const tooltip = undid ? `${fact}\nundid: ${undid.candidateFact ?? undid.id}` : fact;
  return (
    <div className="list-row auto" style={{ gridTemplateColumns: COLS }} data-testid="write-row" data-status={a.status} data-id={a.id}>
      <span className="cell muted" title={formatTime(a.createdAt)}>
        {formatShortTime(a.createdAt)}
      </span>
      <span className="cell">
        <Chip value={a.status} />
      </span>
      <span className="cell mono">{a.targetFile}</span>
      <span className="cell stacked" title={tooltip}>
        <span className="clamp two" data-testid="write-fact">
          {a.source !== 'plugin' && <Chip value={a.source} />} <SecretBadge auditId={a.id} /> <VisibleText text={truncate(fact, 600)} />
        </span>
        {undid && (
          <span className="undid" data-testid="write-undid">
            ↶ undid the {formatShortTime(undid.createdAt)} write:{' '}
            <a href={hrefFor('writes', { id: undid.id })} onClick={(e) => e.stopPropagation()}>
              <VisibleText text={truncate(undid.candidateFact ?? undid.id, 160)} />
            </a>
          </span>
        )}
      </span>
      <span className="cell">
        <LineCounts changes={a.lineChanges} />
      </span>
    </div>
  );
}
