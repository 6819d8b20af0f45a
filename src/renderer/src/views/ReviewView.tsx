import { useCallback, useEffect, useMemo, useState } from 'react';
import { KeyCap } from '../components/Chip';
import { ErrorMessage } from '../components/ErrorMessage';
import { useApi } from '../lib/api';
import { formatCount } from '../lib/format';
import { hrefFor, useViewParams } from '../lib/route';
import { useAsync } from '../lib/useAsync';
import { BulkActions, FilterBar } from './review/FilterBar';
import { filterFromParams } from './review/filters';
import { PiiValuePanel } from './review/PiiValuePanel';
import { GuidelinesPanel, HistoryPanel, NotesPanel, ProgressPanel, ReasonPicker } from './review/ReviewPanels';
import { SampleView } from './review/SampleView';
import { ClusterPanel } from './review/ClusterPanel';
import { SampleEditor } from './review/SampleEditor';
import { GuidelinesDialog } from './review/GuidelinesDialog';
import { KeyOverlay } from './review/KeyOverlay';
import { ReviewKeybar } from './review/ReviewKeybar';
import { SampleFacts } from './review/SampleFacts';
import { usePiiDecisions } from './review/usePiiDecisions';
import { useReviewKeys } from './review/useReviewKeys';
import { useSwitchTiming } from './review/useSwitchTiming';
import './review/review.css';
import { throughput, useReviewQueue, type Action } from './review/useReviewQueue';

export function ReviewView() {
  const api = useApi();
  const [params, setParams] = useViewParams('review');
  const { filter, sort } = useMemo(() => filterFromParams(params), [params]);
  const q = useReviewQueue(api, filter, sort, params.id);
  const pii = usePiiDecisions(api, q);
  const [help, setHelp] = useState(false);
  const [editing, setEditing] = useState(false);
  const [editingGuidelines, setEditingGuidelines] = useState(false);
  const [guidelinesVersion, setGuidelinesVersion] = useState(0);
  const [picking, setPicking] = useState(false);
  const [notes, setNotes] = useState('');
  const settings = useAsync(() => api.call('review.settings', {}), [guidelinesVersion]);
  const me = useAsync(() => api.call('curators.me', {}), []);
  const timing = useSwitchTiming(q.detail?.id);
  const reasons = settings.data?.rejectReasons ?? [];
  useEffect(() => setNotes(''), [q.current?.id]);

  // Stable callbacks: the memoized side panels then skip the re-render of every key press.
  const jumpTo = useCallback((id: string) => setParams({ id, status: 'all' }), [setParams]);
  const openGuidelines = useCallback(() => setEditingGuidelines(true), []);
  const { bulk } = q;
  const runBulk = useCallback((a: Action) => bulk(filter, a), [bulk, filter]);

  const act = (action: Action, reason?: string) => {
    timing.mark();
    q.act(action, { notes: notes.trim() || undefined, reason });
  };
  useReviewKeys({ blocked: editing || editingGuidelines || picking, q, pii, act, mark: timing.mark, setHelp, setPicking, setEditing });

  const rate = throughput(q.actionTimes);
  const position = q.rows.length
    ? `Sample ${formatCount(q.pos + 1)} of ${formatCount(q.total ?? q.rows.length)}`
    : q.loading
      ? 'Loading…'
      : 'The queue is empty';
  return (
    <div className="view" data-testid="view-review">
      <div className="view-header" style={{ flexWrap: 'wrap' }}>
        <h1>Review</h1>
        <span className="nowrap" data-testid="review-position">
          {position}
        </span>
        <span className="grow" />
        {me.data && (
          <span className="muted small nowrap" data-testid="review-curator">
            as {me.data.name}
            {me.data.role === 'lead' ? ' (lead)' : ''}
          </span>
        )}
        <span className="muted small nowrap" data-testid="review-throughput">
          {rate ? `${rate.toFixed(1)} samples/min` : 'samples/min: —'}
        </span>
        {timing.lastSwitchMs != null && (
          <span className="muted small nowrap" title="key press to next sample on screen">
            next in {Math.round(timing.lastSwitchMs)} ms
          </span>
        )}
        <button type="button" onClick={() => setHelp(true)} aria-label="Keyboard shortcuts">
          <KeyCap k="?" /> keys
        </button>
      </div>
      <div className="stack" style={{ gap: 4, padding: '0 0 6px' }}>
        <FilterBar params={params} setParams={setParams} />
        <BulkActions filter={filter} total={q.total} onRun={runBulk} />
      </div>
      <ErrorMessage action="Deciding a PII value" error={pii.piiError} />
      {q.error && (
        <div onClick={q.clearError}>
          <ErrorMessage action={q.error.action} error={q.error.error} />
        </div>
      )}
      <div className="review">
        <div className="review-main">
          {q.detail ? (
            <SampleView sample={q.detail} selectedKey={pii.selectedGroup?.key} onToggle={pii.toggleSpan} />
          ) : q.current ? (
            <div className="muted">Loading sample…</div>
          ) : (
            !q.loading && (
              <div className="empty">
                Nothing to review here. Collect samples in <a href={hrefFor('datasets')}>Datasets</a>, or change the queue or its filters.
              </div>
            )
          )}
        </div>
        <aside className="review-side stack">
          <GuidelinesPanel key={guidelinesVersion} onEdit={openGuidelines} />
          {q.detail && <ClusterPanel sampleId={q.detail.id} />}
          <NotesPanel notes={notes} onNotes={setNotes} reasons={reasons} onReject={(r) => act('reject', r)} disabled={!q.current} />
          {q.detail && pii.groups.length > 0 && (
            <PiiValuePanel
              sample={q.detail}
              groups={pii.groups}
              selectedKey={pii.selectedGroup?.key}
              onSelect={(i) => pii.setSpanIndex(i)}
              onDecide={(g, d) => void pii.decideGroup(g, d)}
              onValuesChanged={() => {
                q.forgetDetails();
                if (q.detail) void q.refreshDetail(q.detail.id);
              }}
              refreshKey={pii.piiTick}
              scope={pii.scope}
              onScope={pii.setScope}
            />
          )}
          <ProgressPanel />
          {q.detail && <SampleFacts sample={q.detail} onCluster={(c) => setParams({ cluster: c, status: 'all', id: undefined })} />}
          <HistoryPanel version={q.undoable + q.actionTimes.length} onJump={jumpTo} />
        </aside>
      </div>
      <ReviewKeybar q={q} pii={pii} act={act} onEdit={() => setEditing(true)} onHelp={() => setHelp(true)} />
      {help && <KeyOverlay onClose={() => setHelp(false)} />}
      {picking && (
        <ReasonPicker
          reasons={reasons}
          onClose={() => setPicking(false)}
          onPick={(r) => {
            setPicking(false);
            act('reject', r);
          }}
        />
      )}
      {editingGuidelines && (
        <GuidelinesDialog onSaved={() => setGuidelinesVersion((v) => v + 1)} onClose={() => setEditingGuidelines(false)} />
      )}
      {editing && q.detail && (
        <SampleEditor
          sample={q.detail}
          onCancel={() => setEditing(false)}
          onSave={async (content) => {
            if (await q.edit(content)) setEditing(false);
          }}
        />
      )}
    </div>
  );
}
