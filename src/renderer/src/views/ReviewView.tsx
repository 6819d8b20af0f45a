import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { PiiSpanDto, SampleDetail } from '../../../shared/contract';
import { KeyCap } from '../components/Chip';
import { ErrorMessage } from '../components/ErrorMessage';
import { groupSpans, spanKey, type PiiGroup } from '../components/PiiText';
import { useApi } from '../lib/api';
import { formatCount } from '../lib/format';
import { isTypingTarget } from '../lib/keys';
import { hrefFor, useViewParams } from '../lib/route';
import { useAsync } from '../lib/useAsync';
import { BulkActions, FilterBar } from './review/FilterBar';
import { filterFromParams } from './review/filters';
import { PiiValuePanel, type DecisionScope } from './review/PiiValuePanel';
import { GuidelinesPanel, HistoryPanel, NotesPanel, ProgressPanel, ReasonPicker } from './review/ReviewPanels';
import { ReviewSettingsPanel } from './review/ReviewSettingsPanel';
import { SampleView } from './review/SampleView';
import { ClusterPanel } from './review/ClusterPanel';
import { SampleEditor } from './review/SampleEditor';
import './review/review.css';
import { throughput, useReviewQueue, type Action } from './review/useReviewQueue';

export const REVIEW_KEYS: { keys: string[]; label: string }[] = [
  { keys: ['a'], label: 'Approve' },
  { keys: ['r'], label: 'Reject' },
  { keys: ['Shift+R'], label: 'Reject with a reason (then 1–9 picks it)' },
  { keys: ['n'], label: 'Needs review' },
  { keys: ['s'], label: 'Skip: give the sample back to the queue and move on' },
  { keys: ['e'], label: 'Edit the sample' },
  { keys: ['u', 'Ctrl+Z'], label: 'Undo your last action (a bulk action is one action)' },
  { keys: ['j', '↓', '→'], label: 'Next sample' },
  { keys: ['k', '↑', '←'], label: 'Previous sample' },
  { keys: [']', '['], label: 'Select the next / previous PII value' },
  { keys: ['x'], label: 'Toggle the selected PII value: redact / keep (in the scope chosen under Privacy)' },
  { keys: ['1–8'], label: 'Switch views everywhere except in Review, where digits never leave (use the sidebar)' },
  { keys: ['?'], label: 'Show / hide this list' },
  { keys: ['Esc'], label: 'Close overlay or editor; leave the notes field' },
];

declare global {
  interface Window {
    /** Key press → next sample painted, in ms; read by bench/ui.ts. */
    __reviewTimings?: number[];
  }
}

export function ReviewView() {
  const api = useApi();
  const [params, setParams] = useViewParams('review');
  const { filter, sort } = useMemo(() => filterFromParams(params), [params]);
  const q = useReviewQueue(api, filter, sort, params.id);
  const [help, setHelp] = useState(false);
  const [editing, setEditing] = useState(false);
  const [editingGuidelines, setEditingGuidelines] = useState(false);
  const [guidelinesVersion, setGuidelinesVersion] = useState(0);
  const [picking, setPicking] = useState(false);
  const [notes, setNotes] = useState('');
  const [scope, setScope] = useState<DecisionScope>('workspace');
  const [spanIndex, setSpanIndex] = useState(0);
  const settings = useAsync(() => api.call('review.settings', {}), [guidelinesVersion]);
  const me = useAsync(() => api.call('curators.me', {}), []);
  const keyAt = useRef<number | null>(null);
  const [lastSwitchMs, setLastSwitchMs] = useState<number | null>(null);
  const reasons = settings.data?.rejectReasons ?? [];

  const groups = groupSpans(q.detail?.piiSpans ?? []);
  const selectedGroup: PiiGroup | undefined = groups[Math.min(spanIndex, groups.length - 1)];
  // Per sample: every span of the value in this sample follows, since the export hides a value wherever it appears.
  const decideInSample = async (group: PiiGroup, decision: 'redact' | 'keep') => {
    const sampleId = q.detail?.id;
    if (!sampleId) return;
    for (const s of group.spans) if (s.decision !== decision) await q.setSpanDecision(sampleId, s.id, decision);
  };
  const [piiTick, setPiiTick] = useState(0);
  const [piiError, setPiiError] = useState<unknown>(null);
  // Once per value: every sample of the session, the workspace or everywhere follows (undo in the panel).
  const decideGroup = async (group: PiiGroup, decision: 'redact' | 'keep') => {
    if (scope === 'sample') return decideInSample(group, decision);
    const sample = q.detail;
    if (!sample) return;
    try {
      await api.call('pii.decideValue', { value: group.value, decision, scope, sessionId: scope === 'session' ? sample.sessionId : undefined });
      setPiiError(null);
      q.forgetDetails();
      await q.refreshDetail(sample.id);
      setPiiTick((t) => t + 1);
    } catch (e) {
      setPiiError(e);
    }
  };
  const toggleGroup = (group: PiiGroup) => void decideGroup(group, group.decision === 'keep' ? 'redact' : 'keep');
  useEffect(() => {
    setSpanIndex(0);
    setNotes('');
  }, [q.current?.id]);

  // Stable callbacks: the memoized side panels then skip the re-render of every key press.
  const jumpTo = useCallback((id: string) => setParams({ id, status: 'all' }), [setParams]);
  const openGuidelines = useCallback(() => setEditingGuidelines(true), []);
  const { bulk } = q;
  const runBulk = useCallback((a: Action) => bulk(filter, a), [bulk, filter]);

  const act = (action: Action, reason?: string) => {
    keyAt.current = performance.now();
    q.act(action, { notes: notes.trim() || undefined, reason });
  };

  // Key press to next sample on screen: measured after the commit, at the next frame.
  useLayoutEffect(() => {
    const t0 = keyAt.current;
    if (t0 == null || !q.detail) return;
    keyAt.current = null;
    requestAnimationFrame(() => {
      const ms = performance.now() - t0;
      (window.__reviewTimings ??= []).push(ms);
      setLastSwitchMs(ms);
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- timed once per sample shown; a refreshed detail of the same sample is no switch
  }, [q.detail?.id]);

  const handler = useRef<(e: KeyboardEvent) => void>(() => undefined);
  handler.current = (e: KeyboardEvent) => {
    if (editing || editingGuidelines || picking || isTypingTarget(e.target)) return;
    const k = e.key;
    if ((e.ctrlKey || e.metaKey) && k.toLowerCase() === 'z') {
      e.preventDefault();
      void q.undo();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const mark = () => (keyAt.current = performance.now());
    switch (k) {
      case '?': setHelp((h) => !h); break;
      case 'Escape': setHelp(false); break;
      case 'a': act('approve'); break;
      case 'r': act('reject'); break;
      case 'R': if (q.current) setPicking(true); break;
      case 'n': act('needs_review'); break;
      case 's': mark(); q.skip(); break;
      case 'e': if (q.detail) setEditing(true); break;
      case 'u': void q.undo(); break;
      case 'j': case 'ArrowDown': case 'ArrowRight': mark(); q.move(1); break;
      case 'k': case 'ArrowUp': case 'ArrowLeft': mark(); q.move(-1); break;
      case ']': setSpanIndex((i) => (groups.length ? (i + 1) % groups.length : 0)); break;
      case '[': setSpanIndex((i) => (groups.length ? (i - 1 + groups.length) % groups.length : 0)); break;
      case 'x':
        if (selectedGroup) toggleGroup(selectedGroup);
        break;
      default: return;
    }
    e.preventDefault();
  };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => handler.current(e);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const rate = throughput(q.actionTimes);
  const toggle = (span: PiiSpanDto) => {
    const g = groups.find((x) => x.key === spanKey(span));
    if (g) toggleGroup(g);
  };
  const position = q.rows.length
    ? `Sample ${formatCount(q.pos + 1)} of ${formatCount(q.total ?? q.rows.length)}`
    : q.loading ? 'Loading…' : 'The queue is empty';
  return (
    <div className="view" data-testid="view-review">
      <div className="view-header" style={{ flexWrap: 'wrap' }}>
        <h1>Review</h1>
        <span className="nowrap" data-testid="review-position">{position}</span>
        <span className="grow" />
        {me.data && <span className="muted small nowrap" data-testid="review-curator">as {me.data.name}{me.data.role === 'lead' ? ' (lead)' : ''}</span>}
        <span className="muted small nowrap" data-testid="review-throughput">{rate ? `${rate.toFixed(1)} samples/min` : 'samples/min: —'}</span>
        {lastSwitchMs != null && <span className="muted small nowrap" title="key press to next sample on screen">next in {Math.round(lastSwitchMs)} ms</span>}
        <button type="button" onClick={() => setHelp(true)} aria-label="Keyboard shortcuts"><KeyCap k="?" /> keys</button>
      </div>
      <div className="stack" style={{ gap: 4, padding: '0 0 6px' }}>
        <FilterBar params={params} setParams={setParams} />
        <BulkActions filter={filter} total={q.total} onRun={runBulk} />
      </div>
      <ErrorMessage action="Deciding a PII value" error={piiError} />
      {q.error && (
        <div onClick={q.clearError}>
          <ErrorMessage action={q.error.action} error={q.error.error} />
        </div>
      )}
      <div className="review">
        <div className="review-main">
          {q.detail ? (
            <SampleView sample={q.detail} selectedKey={selectedGroup?.key} onToggle={toggle} />
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
          {q.detail && groups.length > 0 && (
            <PiiValuePanel
              sample={q.detail}
              groups={groups}
              selectedKey={selectedGroup?.key}
              onSelect={(i) => setSpanIndex(i)}
              onDecide={(g, d) => void decideGroup(g, d)}
              onValuesChanged={() => {
                q.forgetDetails();
                if (q.detail) void q.refreshDetail(q.detail.id);
              }}
              refreshKey={piiTick}
              scope={scope}
              onScope={setScope}
            />
          )}
          <ProgressPanel />
          {q.detail && <SampleFacts sample={q.detail} onCluster={(c) => setParams({ cluster: c, status: 'all', id: undefined })} />}
          <HistoryPanel version={q.undoable + q.actionTimes.length} onJump={jumpTo} />
        </aside>
      </div>
      <div className="keybar" data-testid="keybar">
        <button type="button" onClick={() => act('approve')} disabled={!q.current}><KeyCap k="a" /> approve</button>
        <button type="button" onClick={() => act('reject')} disabled={!q.current}><KeyCap k="r" /> reject</button>
        <button type="button" onClick={() => act('needs_review')} disabled={!q.current}><KeyCap k="n" /> needs review</button>
        <button type="button" onClick={() => q.skip()} disabled={!q.current}><KeyCap k="s" /> skip</button>
        <button type="button" onClick={() => setEditing(true)} disabled={!q.detail}><KeyCap k="e" /> edit</button>
        <button type="button" onClick={() => void q.undo()}><KeyCap k="u" /> undo</button>
        <button type="button" onClick={() => q.move(-1)} disabled={q.pos === 0}><KeyCap k="k" /> previous</button>
        <button type="button" onClick={() => q.move(1)} disabled={q.pos >= q.rows.length - 1}><KeyCap k="j" /> next</button>
        {groups.length > 0 && (
          <>
            <button type="button" onClick={() => setSpanIndex((i) => (i + 1) % groups.length)}><KeyCap k="]" /> next PII</button>
            <button type="button" onClick={() => selectedGroup && toggleGroup(selectedGroup)}><KeyCap k="x" /> redact / keep</button>
          </>
        )}
        <span className="grow" />
        <button type="button" onClick={() => setHelp(true)}><KeyCap k="?" /> all keys</button>
      </div>
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
        <div className="overlay" role="dialog" aria-label="Edit the review guidelines">
          <div className="dialog stack" style={{ width: 900 }}>
            <ReviewSettingsPanel onSaved={() => setGuidelinesVersion((v) => v + 1)} />
            <button type="button" onClick={() => setEditingGuidelines(false)}>Close</button>
          </div>
        </div>
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

function SampleFacts({ sample, onCluster }: { sample: SampleDetail; onCluster: (clusterId: string) => void }) {
  const f = sample.qualityFactors;
  const bar = (label: string, v: number | null | undefined) => (
    <div key={label} className="stack" style={{ gap: 2 }}>
      <span className="small">{label}: {v == null ? '—' : v.toFixed(2)}</span>
      <div className="bar"><span style={{ width: `${Math.round((v ?? 0) * 100)}%` }} /></div>
    </div>
  );
  return (
    <>
      <div className="stack" style={{ gap: 6 }} data-testid="quality-factors">
        <h3>Quality</h3>
        {bar('score', sample.qualityScore)}
        {f && bar('conversation clarity', f.conversationClarity)}
        {f && bar('decision confidence', f.decisionConfidence)}
        {f && bar('fact verifiability', f.factVerifiability)}
      </div>
      <div className="stack" style={{ gap: 4 }} data-testid="feedback-signals">
        <h3>Feedback signals</h3>
        {sample.feedbackSignals.length === 0 && <span className="muted small">None detected in the following turns.</span>}
        {sample.feedbackSignals.map((s, i) => (
          <div key={i} className="small">
            <span className="chip">{s.kind}</span> <span className="prewrap">“{s.evidence}”</span>
          </div>
        ))}
      </div>
      <div className="small muted">
        Session <a href={hrefFor('sessions', { id: sample.sessionId })}>{sample.sessionId}</a>
        {sample.auditId && <> · <a href={hrefFor('writes', { id: sample.auditId })}>write</a></>}
        {sample.clusterId && (
          <> · <button type="button" className="small" onClick={() => onCluster(sample.clusterId!)} data-testid="filter-to-cluster">its near-duplicate cluster</button></>
        )}
        {sample.annotatedBy && <div>Last labelled by <b>{sample.annotatedBy}</b></div>}
        {sample.annotationNotes && <div className="prewrap">Notes: {sample.annotationNotes}</div>}
      </div>
    </>
  );
}

function KeyOverlay({ onClose }: { onClose: () => void }) {
  return (
    <div className="overlay" onClick={onClose} role="dialog" aria-label="Keyboard shortcuts" data-testid="keys-overlay">
      <div className="dialog" onClick={(e) => e.stopPropagation()}>
        <h2>Keyboard shortcuts</h2>
        <p className="muted small">Every action is saved at once. Undo works after a reload too.</p>
        <table>
          <tbody>
            {REVIEW_KEYS.map((k) => (
              <tr key={k.label}>
                <td>{k.keys.map((x) => <KeyCap key={x} k={x} />)}</td>
                <td>{k.label}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" onClick={onClose}>Close</button>
      </div>
    </div>
  );
}
