// Session rollback: a dry run previews every write of the session (newest first, each seeing the
// file as the newer undos leave it), with the conflicts it would hit. The curator chooses per write
// (roll back, skip, or force over a conflict), gives a reason, applies, and reads the result per write.
import { Fragment, useState } from 'react';
import type { SessionRollbackItemDto, SessionRollbackOutcome } from '../../../../shared/contract';
import { Chip } from '../../components/Chip';
import { ErrorMessage } from '../../components/ErrorMessage';
import { VisibleText } from '../../components/VisibleText';
import { useApi } from '../../lib/api';
import { formatShortTime, formatTime } from '../../lib/format';
import { hrefFor } from '../../lib/route';
import { useAction, useAsync } from '../../lib/useAsync';
import { RollbackDiff } from './RollbackFlow';

type Choice = 'rollback' | 'skip' | 'force';
// The API requires a reason even for a dry run; the preview's is never stored.
const PREVIEW_REASON = 'preview';

function state(item: SessionRollbackItemDto): { label: string; tone: string } {
  if (item.status === 'skipped') return { label: 'skipped', tone: 'skipped' };
  if (item.status === 'rolled_back') return { label: `rolled back (${item.mode?.replace('_', ' ')})`, tone: 'written' };
  if (item.status === 'conflict') return { label: 'conflict', tone: 'conflict' };
  if (item.status === 'refused') return { label: 'refused', tone: 'refused' };
  return {
    label: item.dryRun
      ? `will ${item.mode === 'reverse_patch' ? 'reverse its change' : item.mode === 'force' ? 'restore (forced)' : 'restore'}`
      : 'not applied',
    tone: 'pending',
  };
}

export function SessionRollbackFlow({ sessionId, onClose }: { sessionId: string; onClose: () => void }) {
  const api = useApi();
  const [choices, setChoices] = useState<Record<string, Choice>>({});
  const [reason, setReason] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const [result, setResult] = useState<SessionRollbackOutcome | null>(null);
  const skip = Object.keys(choices).filter((k) => choices[k] === 'skip');
  const forceIds = Object.keys(choices).filter((k) => choices[k] === 'force');
  const preview = useAsync(
    () => api.call('guardian.rollbackSession', { sessionId, reason: PREVIEW_REASON, dryRun: true, skip, forceIds }),
    [sessionId, skip.join(','), forceIds.join(',')],
    { skip: result !== null, areas: ['writes'] },
  );
  const apply = useAction(async () => {
    const r = await api.call('guardian.rollbackSession', { sessionId, reason: reason.trim(), skip, forceIds });
    setResult(r);
    return r;
  });
  const items = result?.results ?? preview.data?.results ?? [];
  const blocking = result ? [] : items.filter((i) => i.status === 'conflict');
  const choose = (id: string, c: Choice) => setChoices((prev) => ({ ...prev, [id]: c }));
  return (
    <div className="card stack" data-testid="session-rollback">
      <div className="row-flex">
        <h3 style={{ margin: 0 }}>{result ? 'Session rollback: result per write' : 'Roll back this session’s writes'}</h3>
        <span className="grow" />
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {!result && (
        <div className="muted small">
          Dry run: nothing is written until you apply. Newest first; each write is undone on the file as the newer undos leave it.
        </div>
      )}
      <ErrorMessage action="Previewing the session rollback" error={preview.error} onRetry={preview.reload} />
      {!preview.data && !result && !preview.error && <div className="muted">Previewing…</div>}
      {items.length === 0 && (preview.data || result) && <div className="muted">This session has no written writes to roll back.</div>}
      {items.length > 0 && (
        <table className="data-table" data-testid={result ? 'session-rollback-results' : 'session-rollback-preview'}>
          <thead>
            <tr>
              <th>Time</th>
              <th>File</th>
              <th>Fact</th>
              <th>{result ? 'Result' : 'Preview'}</th>
              {!result && <th>Choice</th>}
            </tr>
          </thead>
          <tbody>
            {items.map((i) => (
              <Fragment key={i.auditId}>
                <ItemRow
                  item={i}
                  result={!!result}
                  choice={choices[i.auditId] ?? 'rollback'}
                  onChoose={(c) => choose(i.auditId, c)}
                  expanded={open === i.auditId}
                  onToggle={() => setOpen(open === i.auditId ? null : i.auditId)}
                />
                {open === i.auditId && (
                  <tr>
                    <td colSpan={result ? 4 : 5}>
                      {i.conflict && <pre className="prewrap small">{i.conflict.conflictingDiff ?? i.conflict.message}</pre>}
                      {(i.resultContent !== null || i.diff) && <RollbackDiff outcome={i} current={i.conflict?.current ?? null} />}
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
      {!result && items.length > 0 && (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            if (reason.trim() && blocking.length === 0) void apply.run();
          }}
        >
          {blocking.length > 0 && (
            <div className="warning" data-testid="session-rollback-blocked">
              {blocking.length} write{blocking.length > 1 ? 's' : ''} would conflict with later changes: skip{' '}
              {blocking.length > 1 ? 'them' : 'it'} or force the old version back.
            </div>
          )}
          <label>
            Why roll these writes back? (kept with every rollback)
            <textarea rows={2} value={reason} onChange={(e) => setReason(e.target.value)} aria-label="Session rollback reason" />
          </label>
          {!reason.trim() && <span className="field-error">A reason is required.</span>}
          <div className="row-flex">
            <button type="submit" className="danger" disabled={!reason.trim() || blocking.length > 0 || apply.pending || !preview.data}>
              {apply.pending ? 'Rolling back…' : `Apply: roll back ${items.filter((i) => i.status !== 'skipped').length} write(s)`}
            </button>
          </div>
          <ErrorMessage action="Rolling back the session" error={apply.error} />
        </form>
      )}
      {result && (
        <div className="notice" data-testid="session-rollback-done">
          {result.rolledBack} rolled back · {result.results.filter((r) => r.status === 'skipped').length} skipped · {result.refused}{' '}
          refused. Each rollback is its own write and can be undone.
        </div>
      )}
    </div>
  );
}

function ItemRow({
  item,
  result,
  choice,
  onChoose,
  expanded,
  onToggle,
}: {
  item: SessionRollbackItemDto;
  result: boolean;
  choice: Choice;
  onChoose: (c: Choice) => void;
  expanded: boolean;
  onToggle: () => void;
}) {
  const s = state(item);
  return (
    <tr data-testid="session-rollback-item" data-audit={item.auditId} data-state={s.tone}>
      <td className="nowrap" title={formatTime(item.createdAt)}>
        {formatShortTime(item.createdAt)}
      </td>
      <td className="mono">{item.fileName}</td>
      <td className="prewrap" style={{ minWidth: 160 }}>
        <VisibleText text={item.candidateFact ?? ''} />
      </td>
      <td>
        <Chip value={s.label} kind={s.tone} />
        {item.error && !item.conflict && <div className="small muted prewrap">{item.error}</div>}
        {item.conflict && (
          <div className="small" title={item.conflict.message}>
            later changes overlap it
          </div>
        )}
        {item.status === 'rolled_back' && item.rollbackAuditId && (
          <div className="small">
            <a href={hrefFor('writes', { id: item.rollbackAuditId })}>rollback write</a>
          </div>
        )}
        <button type="button" className="link small" onClick={onToggle} aria-expanded={expanded}>
          {expanded ? 'hide diff' : 'diff'}
        </button>
      </td>
      {!result && (
        <td>
          <select
            value={choice}
            onChange={(e) => onChoose(e.target.value as Choice)}
            aria-label={`Choice for ${item.fileName} write ${formatShortTime(item.createdAt)}`}
          >
            <option value="rollback">roll back</option>
            <option value="skip">skip</option>
            <option value="force" title="restore the old version, discarding later changes">
              force
            </option>
          </select>
        </td>
      )}
    </tr>
  );
}
