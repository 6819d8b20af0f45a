// Memory health: the findings queue (contradictions, repeated facts, secrets in memory) with
// keep / merge / remove / dismiss, the hash-chain check, and erasure of a value across history.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { EraseDto, FindingDto } from '../../../shared/contract';
import { Chip } from '../components/Chip';
import { ErrorMessage } from '../components/ErrorMessage';
import { VisibleText } from '../components/VisibleText';
import { useApi } from '../lib/api';
import { formatTime } from '../lib/format';
import { hrefFor, useViewParams } from '../lib/route';
import { useApiQuery } from '../lib/queries';
import { useAction } from '../lib/useAsync';
import { HealthCard } from './health/HealthCard';

const STATUSES = ['open', 'resolved', 'merged', 'dismissed'] as const;
const KINDS = ['contradiction', 'duplicate', 'secret'] as const;

export function HealthView() {
  const api = useApi();
  const [params, setParams] = useViewParams('health');
  const status = (STATUSES as readonly string[]).includes(params.status ?? '') ? (params.status as (typeof STATUSES)[number]) : 'open';
  const kind = (KINDS as readonly string[]).includes(params.kind ?? '') ? (params.kind as (typeof KINDS)[number]) : undefined;
  const findings = useApiQuery('health.findings', { status, kind });
  const queryClient = useQueryClient();
  const scan = useAction(async () => {
    const r = await api.call('health.scan', {});
    await findings.refetch();
    await queryClient.invalidateQueries({ queryKey: ['health.summary'] });
    return r;
  });
  const opinion = useAction(async () => {
    const r = await api.call('health.secondOpinion', {});
    await findings.refetch();
    return r;
  });
  // The queue reflects the files as they are now: scan once when the view opens.
  useEffect(() => {
    void scan.run();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- scan once when the view opens, not whenever the action object is recreated
  }, []);
  return (
    <div className="view" data-testid="view-health">
      <div className="view-header">
        <h1>Memory health</h1>
        <div className="filters">
          <label>
            Status
            <select value={status} onChange={(e) => setParams({ status: e.target.value })} aria-label="Status">
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <label>
            Kind
            <select value={kind ?? ''} onChange={(e) => setParams({ kind: e.target.value })} aria-label="Kind">
              <option value="">all</option>
              {KINDS.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </label>
          <button type="button" onClick={() => void scan.run()} disabled={scan.pending}>
            {scan.pending ? 'Scanning…' : 'Scan again'}
          </button>
          <button
            type="button"
            onClick={() => void opinion.run()}
            disabled={opinion.pending}
            title="Ask the OpenAI-compatible endpoint set in memoryHealth.secondOpinion (off by default)"
          >
            {opinion.pending ? 'Asking…' : 'Second opinion'}
          </button>
        </div>
      </div>
      <div className="pane stack" style={{ overflow: 'auto' }}>
        <HealthCard link={false} />
        <ErrorMessage action="Scanning the memory files" error={scan.error} />
        <ErrorMessage action="Asking for a second opinion" error={opinion.error} />
        <ErrorMessage action="Loading findings" error={findings.error} onRetry={() => void findings.refetch()} />
        <div className="stack" data-testid="finding-queue">
          {findings.data?.length === 0 && (
            <div className="empty">
              No {status} findings{kind ? ` of kind ${kind}` : ''}.
            </div>
          )}
          {findings.data?.map((f) => (
            <FindingCard key={f.id} finding={f} onChanged={() => void findings.refetch()} />
          ))}
        </div>
        <VerifyCard />
        <EraseCard />
      </div>
    </div>
  );
}

function FindingCard({ finding: f, onChanged }: { finding: FindingDto; onChanged: () => void }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [keep, setKeep] = useState(f.detail.lines.length - 1);
  const [merging, setMerging] = useState(false);
  const [merged, setMerged] = useState(f.detail.lines[f.detail.lines.length - 1]?.text.replace(/^\s*[-*+]\s+/, '') ?? '');
  const resolve = useAction(async (input: { action: 'keep' | 'merge' | 'dismiss' | 'remove'; keep?: number; text?: string }) => {
    const r = await api.call('health.resolve', { id: f.id, ...input });
    onChanged();
    await queryClient.invalidateQueries({ queryKey: ['health.summary'] });
    return r;
  });
  const open = f.status === 'open';
  const opinion = f.detail.secondOpinion;
  return (
    <div className="card stack" data-testid="finding" data-kind={f.kind} data-attribute={f.attribute ?? ''}>
      <div className="row-flex">
        <Chip value={f.kind} kind={f.kind === 'secret' ? 'bad' : f.kind === 'contradiction' ? 'warn' : 'muted'} />
        {f.attribute && <strong>{f.attribute}</strong>}
        {!open && <Chip value={f.status} />}
        <span className="grow" />
        <span className="muted small">found {formatTime(f.createdAt)}</span>
      </div>
      {opinion && (
        <div className="small muted">
          Second opinion:{' '}
          {'verdict' in opinion ? `${opinion.verdict} — ${opinion.reason} (${opinion.model})` : `unavailable (${opinion.error})`}
        </div>
      )}
      <div className="stack" role={open && f.kind !== 'secret' ? 'radiogroup' : undefined} aria-label="Line to keep">
        {f.detail.lines.map((l, i) => (
          <label
            key={`${l.fileName}:${l.line}`}
            className="small"
            data-testid="finding-line"
            style={{ display: 'flex', flexDirection: 'row', alignItems: 'baseline', gap: 8, textAlign: 'left' }}
          >
            {open && f.kind !== 'secret' && (
              <input
                type="radio"
                name={`keep-${f.id}`}
                checked={keep === i}
                onChange={() => setKeep(i)}
                aria-label={`Keep line ${i + 1}`}
              />
            )}
            <a className="mono muted" href={hrefFor('writes', { file: l.fileName })}>
              {l.fileName}:{l.line}
            </a>
            <span className="prewrap" style={{ color: 'var(--text, inherit)' }}>
              <VisibleText text={l.text.trim()} />
            </span>
          </label>
        ))}
      </div>
      {open && (
        <div className="row-flex">
          {f.kind === 'secret' ? (
            <button
              type="button"
              className="primary"
              disabled={resolve.pending}
              onClick={() => void resolve.run({ action: 'remove' })}
              data-testid="finding-remove"
            >
              Remove the value
            </button>
          ) : (
            <>
              <button
                type="button"
                className="primary"
                disabled={resolve.pending}
                onClick={() => void resolve.run({ action: 'keep', keep })}
                data-testid="finding-keep"
              >
                Keep the selected line
              </button>
              <button type="button" onClick={() => setMerging((m) => !m)}>
                Merge…
              </button>
            </>
          )}
          <button
            type="button"
            disabled={resolve.pending}
            onClick={() => void resolve.run({ action: 'dismiss' })}
            data-testid="finding-dismiss"
          >
            Dismiss
          </button>
          <span className="muted small">
            Keeping, merging and removing write the file as a recorded curator write and correct the write that introduced the stale value.
          </span>
        </div>
      )}
      {open && merging && (
        <div className="row-flex">
          <input style={{ flex: 1 }} value={merged} onChange={(e) => setMerged(e.target.value)} aria-label="Merged line" />
          <button
            type="button"
            disabled={!merged.trim() || resolve.pending}
            onClick={() => void resolve.run({ action: 'merge', text: merged })}
          >
            Replace them with this line
          </button>
        </div>
      )}
      <ErrorMessage action="Resolving the finding" error={resolve.error} />
    </div>
  );
}

function VerifyCard() {
  const [asked, setAsked] = useState(false);
  const verify = useApiQuery('health.verify', {}, { skip: !asked });
  return (
    <div className="card stack" data-testid="verify-card">
      <div className="row-flex">
        <strong>Tamper evidence</strong>
        <span className="grow" />
        <button type="button" onClick={() => (asked ? void verify.refetch() : setAsked(true))}>
          Verify the hash chain
        </button>
      </div>
      <ErrorMessage action="Verifying" error={verify.error} />
      {verify.data && (
        <div className="small" data-testid="verify-result">
          {verify.data.ok ? (
            <span style={{ color: 'var(--ok)' }}>Every version verifies.</span>
          ) : (
            <span style={{ color: 'var(--bad)' }}>{verify.data.breaks.length} break(s):</span>
          )}
          <ul>
            {verify.data.breaks.map((b, i) => (
              <li key={i}>{b.message}</li>
            ))}
            {verify.data.events.map((e, i) => (
              <li key={`e${i}`} className="muted">
                Re-chained {e.fileName} from version {e.fromSeq}: {e.reason} ({formatTime(e.createdAt)})
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

function EraseCard() {
  const api = useApi();
  const [value, setValue] = useState('');
  const [deleteExports, setDeleteExports] = useState(false);
  const [preview, setPreview] = useState<EraseDto | null>(null);
  const dry = useAction(async () => setPreview(await api.call('health.erase', { value, dryRun: true, deleteExports })));
  const erase = useAction(async () => setPreview(await api.call('health.erase', { value, dryRun: false, confirm: true, deleteExports })));
  return (
    <div className="card stack" data-testid="erase-card">
      <strong>Erase a value across history</strong>
      <div className="row-flex">
        <input
          style={{ flex: 1 }}
          value={value}
          onChange={(e) => {
            setValue(e.target.value);
            setPreview(null);
          }}
          placeholder="an email, a key…"
          aria-label="Value to erase"
        />
        <label className="small" style={{ display: 'flex', flexDirection: 'row', alignItems: 'center', gap: 4 }}>
          <input type="checkbox" checked={deleteExports} onChange={(e) => setDeleteExports(e.target.checked)} /> also delete past exports
          holding it
        </label>
        <button type="button" disabled={value.trim().length < 5 || dry.pending} onClick={() => void dry.run()}>
          List every place
        </button>
      </div>
      <ErrorMessage action="Listing the places" error={dry.error} />
      <ErrorMessage action="Erasing" error={erase.error} />
      {preview && (
        <div className="stack small">
          {preview.places.length === 0 ? (
            <div className="muted">Stored nowhere.</div>
          ) : (
            <table className="grid">
              <tbody>
                {preview.places.map((p) => (
                  <tr key={p.place}>
                    <td className="mono">{p.place}</td>
                    <td>{p.kind}</td>
                    <td>{p.count}</td>
                    <td>{p.action}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {preview.dryRun && preview.places.length > 0 && (
            <button type="button" className="danger" disabled={erase.pending} onClick={() => void erase.run()}>
              Erase everywhere (irreversible)
            </button>
          )}
          {!preview.dryRun && <div>Erased. The stub {preview.erasureId} keeps when, who and a salted hash — never the value.</div>}
          {preview.warnings.map((w) => (
            <div key={w} className="notice">
              {w}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
