// A memory file with a blame gutter: each line shows the write that last produced it. Clicking a
// line opens that write's decision and conversation turn, its earlier history (moved or reworded
// lines), and the existing rollback flow one click away.
import { useState } from 'react';
import type { BlameLine } from '../../../../shared/contract';
import type { MemoryFileName } from '../../../../shared/domain';
import { Chip } from '../../components/Chip';
import { Message } from '../../components/Conversation';
import { ErrorMessage } from '../../components/ErrorMessage';
import { VisibleText } from '../../components/VisibleText';
import { formatShortTime, formatTime } from '../../lib/format';
import { hrefFor } from '../../lib/route';
import { useApiQuery } from '../../lib/queries';

// Neighbouring lines from the same write share a band colour, like git blame's alternating blocks.
const BANDS = ['var(--accent-soft, #e8f0fe)', 'transparent'];

export function BlameGutter({ file }: { file: MemoryFileName }) {
  const blame = useApiQuery('health.blame', { file });
  const [selected, setSelected] = useState<number | null>(null);
  if (blame.error) return <ErrorMessage action={`Blaming ${file}`} error={blame.error} onRetry={() => void blame.refetch()} />;
  if (!blame.data) return <div className="muted">Loading blame…</div>;
  const lines = blame.data.lines;
  let band = 0;
  const bands = lines.map((l, i) => (i > 0 && lines[i - 1]?.write?.auditId !== l.write?.auditId ? ++band : band) % 2);
  const line = selected !== null ? lines[selected - 1] : undefined;
  return (
    <div className="stack" data-testid="blame-view">
      <div className="muted small">
        {file}: {lines.length} lines from {blame.data.versions} recorded versions. Click a line to see the write, decision and turn that
        produced it.
        {blame.data.diskDiffers && <span className="notice"> The file has edits not recorded yet (no write shown for those lines).</span>}
      </div>
      <div className="card" style={{ maxHeight: 420, overflow: 'auto', padding: 0 }}>
        <table className="grid mono small" style={{ width: '100%', borderCollapse: 'collapse' }} data-testid="blame-gutter">
          <tbody>
            {lines.map((l, i) => (
              <tr
                key={l.line}
                data-testid="blame-line"
                data-line={l.line}
                data-audit={l.write?.auditId ?? ''}
                onClick={() => setSelected(l.line)}
                style={{
                  cursor: 'pointer',
                  background: BANDS[bands[i] ?? 0],
                  outline: selected === l.line ? '2px solid var(--accent, #2563eb)' : undefined,
                  outlineOffset: -2,
                }}
              >
                <td
                  className="muted nowrap"
                  style={{ width: 150, borderRight: '2px solid var(--border, #ccc)' }}
                  title={l.write ? `${l.write.source} write ${l.write.auditId}, ${formatTime(l.write.createdAt)}` : 'not recorded yet'}
                >
                  {i > 0 && lines[i - 1]?.write?.auditId === l.write?.auditId
                    ? ''
                    : l.write
                      ? `${formatShortTime(l.write.createdAt)} ${l.write.source ?? ''}`
                      : 'unrecorded'}
                </td>
                <td className="muted" style={{ width: 36, textAlign: 'right', paddingRight: 8 }}>
                  {l.line}
                </td>
                <td style={{ whiteSpace: 'pre-wrap' }}>
                  <VisibleText text={l.text} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {line && <BlameDetail file={file} line={line} />}
    </div>
  );
}

function BlameDetail({ file, line: brief }: { file: MemoryFileName; line: BlameLine }) {
  // The whole-file blame carries one step of history per line; the selected line gets all of it.
  const full = useApiQuery('health.blame', { file, line: brief.line });
  const line = full.data?.lines[0]?.text === brief.text ? full.data.lines[0] : brief;
  const w = line.write;
  const show = useApiQuery('guardian.show', { id: w?.auditId ?? '' }, { skip: !w });
  if (!w)
    return (
      <div className="card muted" data-testid="blame-detail">
        Line {line.line} was changed outside any recorded write; record it with reconcile to see it here.
      </div>
    );
  const d = show.data;
  return (
    <div className="card stack" data-testid="blame-detail">
      <div className="row-flex">
        <strong>Line {line.line}</strong>
        <Chip value={w.source ?? 'unknown'} />
        {w.status && <Chip value={w.status} />}
        <span className="muted small">{formatTime(w.createdAt)}</span>
        <span className="grow" />
        <a href={hrefFor('writes', { id: w.auditId })}>Open the write</a>
        {w.status === 'written' && (
          <a href={hrefFor('writes', { id: w.auditId, tab: 'rollback' })} data-testid="blame-rollback">
            <button type="button">Roll back this line's write…</button>
          </a>
        )}
      </div>
      <ErrorMessage action="Loading the write" error={show.error} />
      <dl className="kv">
        <dt>Write</dt>
        <dd className="mono small">{w.auditId}</dd>
        {(w.candidateFact || w.reason) && (
          <>
            <dt>Why</dt>
            <dd className="prewrap">
              <VisibleText text={w.candidateFact ?? w.reason} />
            </dd>
          </>
        )}
        {d?.decision && (
          <>
            <dt>Decision</dt>
            <dd data-testid="blame-decision">
              <Chip value={d.decision.decision} />{' '}
              <span className="muted prewrap">
                <VisibleText text={d.decision.reason} />
              </span>
            </dd>
          </>
        )}
        {w.sessionId && (
          <>
            <dt>Session</dt>
            <dd className="mono small">{w.sessionId}</dd>
          </>
        )}
      </dl>
      {d?.turn && (
        <div data-testid="blame-turn">
          <Message role="user" from={d.turn.userFrom}>
            {d.turn.userMessage}
          </Message>
          <Message role="agent">{d.turn.agentReply}</Message>
        </div>
      )}
      {line.history.length > 0 && (
        <div data-testid="blame-history">
          <div className="muted small">Earlier, before it was moved or reworded:</div>
          <ul className="small">
            {line.history.map((h) => (
              <li key={`${h.write.auditId}-${h.text}`}>
                <a href={hrefFor('writes', { id: h.write.auditId })}>
                  {formatShortTime(h.write.createdAt)} {h.write.source}
                </a>
                : <VisibleText text={h.text} />
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
