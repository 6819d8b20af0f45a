// What write_guardian did, shown beside the correction form: the decision, the write, the conversation.
import type { AuditDetail } from '../../../../shared/contract';
import { Chip } from '../../components/Chip';
import { Message } from '../../components/Conversation';
import { VisibleText } from '../../components/VisibleText';
import { formatTime } from '../../lib/format';

export function OriginalCard({ detail }: { detail: AuditDetail }) {
  const a = detail.audit;
  return (
    <div className="card stack" data-testid="correction-original">
      <h3>Original</h3>
      {detail.decision && (
        <dl className="kv">
          <dt>Decision</dt>
          <dd>
            <Chip value={detail.decision.decision} />
          </dd>
          <dt>Reason</dt>
          <dd className="prewrap">
            <VisibleText text={detail.decision.reason} />
          </dd>
        </dl>
      )}
      <dl className="kv">
        <dt>Write</dt>
        <dd>
          <Chip value={a.status} /> <span className="mono">{a.targetFile}</span>
        </dd>
        <dt>Fact</dt>
        <dd className="prewrap">
          {a.candidateFact != null ? <VisibleText text={a.candidateFact} /> : <span className="muted">none</span>}
        </dd>
        {a.reason && (
          <>
            <dt>Guardian</dt>
            <dd className="prewrap">
              <VisibleText text={a.reason} />
            </dd>
          </>
        )}
        <dt>When</dt>
        <dd>{formatTime(a.createdAt)}</dd>
      </dl>
      {detail.turn && (
        <details open>
          <summary>Conversation</summary>
          <Message role="user" from={detail.turn.userFrom}>
            {detail.turn.userMessage}
          </Message>
          <Message role="agent">{detail.turn.agentReply}</Message>
        </details>
      )}
      {detail.corrections.length > 0 && (
        <div className="small muted">
          Corrections of this write: {detail.corrections.map((c) => `${c.correctedStatus} (${formatTime(c.correctedAt)})`).join(', ')}
        </div>
      )}
    </div>
  );
}
