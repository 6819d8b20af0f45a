import { Chip } from '../../components/Chip';
import { VisibleText } from '../../components/VisibleText';
import { Message } from '../../components/Conversation';
import { ErrorMessage } from '../../components/ErrorMessage';
import { formatTime } from '../../lib/format';
import { hrefFor, useViewParams } from '../../lib/route';
import { useApiQuery } from '../../lib/queries';
import { DiffView } from '../../monaco/DiffView';
import { FileHistory } from './FileHistory';
import { BlameGutter } from '../health/BlameGutter';
import { SecretActions } from '../health/SecretFlags';
import { RetryFlow } from './RetryFlow';
import { RollbackFlow } from './RollbackFlow';

const TABS = [
  { id: 'diff', label: 'Diff' },
  { id: 'history', label: 'File history' },
  { id: 'blame', label: 'Blame' },
  { id: 'rollback', label: 'Rollback' },
  { id: 'retry', label: 'Retry' },
] as const;

export function WriteDetail({ id }: { id: string }) {
  const [params, setParams] = useViewParams('writes');
  const tab = TABS.some((t) => t.id === params.tab) ? params.tab : 'diff';
  const detail = useApiQuery('guardian.show', { id });
  const a = detail.data?.audit;
  return (
    <div className="stack" data-testid="write-detail">
      <ErrorMessage action="Loading the write" error={detail.error} onRetry={() => void detail.refetch()} />
      {a && (
        <div className="card stack">
          <div className="row-flex">
            <Chip value={a.status} />
            {a.source !== 'plugin' && <Chip value={a.source} />}
            <span className="mono">{a.targetFile}</span>
            <span className="muted small">{formatTime(a.createdAt)}</span>
            <span className="grow" />
            <a href={hrefFor('corrections', { audit: a.id })}>
              <button type="button">Correct…</button>
            </a>
          </div>
          <dl className="kv">
            <dt>Fact</dt>
            <dd className="prewrap">
              {a.candidateFact != null ? <VisibleText text={a.candidateFact} /> : <span className="muted">none</span>}
            </dd>
            {a.reason && (
              <>
                <dt>Reason</dt>
                <dd className="prewrap">
                  <VisibleText text={a.reason} />
                </dd>
              </>
            )}
            {detail.data?.decision && (
              <>
                <dt>Decision</dt>
                <dd>
                  <Chip value={detail.data.decision.decision} />{' '}
                  <span className="muted prewrap">
                    <VisibleText text={detail.data.decision.reason} />
                  </span>
                </dd>
              </>
            )}
            {detail.data?.rollback && (
              <>
                <dt>Rolled back</dt>
                <dd>
                  {formatTime(detail.data.rollback.rolledBackAt)} by {detail.data.rollback.rolledBackBy}: {detail.data.rollback.reason}
                </dd>
              </>
            )}
            {detail.data && detail.data.corrections.length > 0 && (
              <>
                <dt>Corrections</dt>
                <dd>
                  {detail.data.corrections.map((c) => (
                    <div key={c.id}>
                      <Chip value={c.correctedStatus} /> {c.correctedCandidateFact ?? ''} — {c.correctionReason}
                    </div>
                  ))}
                </dd>
              </>
            )}
          </dl>
          {detail.data?.turn && (
            <details>
              <summary>Conversation turn</summary>
              <Message role="user" from={detail.data.turn.userFrom}>
                {detail.data.turn.userMessage}
              </Message>
              <Message role="agent">{detail.data.turn.agentReply}</Message>
            </details>
          )}
        </div>
      )}
      {a && <SecretActions auditId={a.id} onDone={() => void detail.refetch()} />}
      <div className="row-flex" role="tablist">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            className={tab === t.id ? 'primary' : ''}
            onClick={() => setParams({ tab: t.id === 'diff' ? undefined : t.id })}
          >
            {t.label}
          </button>
        ))}
      </div>
      {tab === 'diff' && <AuditDiffPane id={id} />}
      {tab === 'history' && a && <FileHistory file={a.targetFile} initialAuditId={id} />}
      {tab === 'blame' && a && <BlameGutter file={a.targetFile} />}
      {tab === 'rollback' && a && <RollbackFlow audit={a} onDone={() => void detail.refetch()} />}
      {tab === 'retry' && a && <RetryFlow audit={a} corrections={detail.data?.corrections ?? []} />}
    </div>
  );
}

export function AuditDiffPane({ id, height = 440 }: { id: string; height?: number }) {
  const diff = useApiQuery('guardian.diff', { id });
  if (diff.error) return <ErrorMessage action="Loading the diff" error={diff.error} onRetry={() => void diff.refetch()} />;
  if (!diff.data) return <div className="muted">Loading diff…</div>;
  const d = diff.data;
  return (
    <div className="stack">
      <div className="muted small">
        {d.before == null
          ? `The write created ${d.fileName}.`
          : d.after == null
            ? `The write deleted ${d.fileName}.`
            : `${d.fileName}: how this write changed it.`}
      </div>
      <DiffView
        before={d.before}
        after={d.after}
        height={height}
        label={`diff of ${d.fileName}`}
        beforeLabel="before the write"
        afterLabel="after the write"
      />
    </div>
  );
}
