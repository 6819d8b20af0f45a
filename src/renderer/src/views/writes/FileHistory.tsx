import { useCallback, useEffect, useState } from 'react';
import { VisibleText } from '../../components/VisibleText';
import type { MemoryFileName } from '../../../../shared/domain';
import type { FileVersion } from '../../../../shared/contract';
import { Chip, LineCounts } from '../../components/Chip';
import { ErrorMessage } from '../../components/ErrorMessage';
import { useApi } from '../../lib/api';
import { formatTime, truncate } from '../../lib/format';
import { useViewParams } from '../../lib/route';
import { AuditDiffPane } from './WriteDetail';

/** Every version of one memory file, newest first; step through them and see each version's diff. */
export function FileHistory({ file, initialAuditId }: { file: MemoryFileName; initialAuditId: string }) {
  const api = useApi();
  const [params, setParams] = useViewParams('writes');
  const [versions, setVersions] = useState<FileVersion[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const load = useCallback(
    async (from: string | undefined) => {
      try {
        const page = await api.call('guardian.history', { file, limit: 100, cursor: from });
        setVersions((v) => (from ? v.concat(page.items) : page.items));
        setCursor(page.nextCursor);
        setError(undefined);
      } catch (e) {
        setError(e);
      }
    },
    [api, file],
  );
  useEffect(() => {
    void load(undefined);
  }, [load]);
  const current = params.v ?? initialAuditId;
  const index = versions.findIndex((v) => v.auditId === current);
  const step = (delta: number) => {
    const next = versions[index + delta];
    if (next) setParams({ v: next.auditId });
    else if (delta > 0 && cursor) void load(cursor);
  };
  return (
    <div className="stack" data-testid="file-history">
      <ErrorMessage action={`Loading the history of ${file}`} error={error} />
      <div className="row-flex">
        <button type="button" onClick={() => step(1)} disabled={index === versions.length - 1 && !cursor} aria-label="Older version">
          ◀ Older
        </button>
        <span>
          Version {index >= 0 ? versions.length - index : '?'} of {versions.length}
          {cursor ? '+' : ''} of <span className="mono">{file}</span>
        </span>
        <button type="button" onClick={() => step(-1)} disabled={index <= 0} aria-label="Newer version">
          Newer ▶
        </button>
      </div>
      <div style={{ maxHeight: 180, overflow: 'auto' }} className="card">
        <table className="grid">
          <tbody>
            {versions.map((v) => (
              <tr
                key={v.auditId}
                onClick={() => setParams({ v: v.auditId })}
                style={{ cursor: 'pointer', background: v.auditId === current ? 'var(--accent-soft)' : undefined }}
              >
                <td className="muted">{formatTime(v.createdAt)}</td>
                <td>
                  <Chip value={v.status} />
                </td>
                <td>
                  <Chip value={v.source} />
                </td>
                <td>
                  <VisibleText text={truncate(v.candidateFact ?? v.reason, 90)} />
                </td>
                <td>
                  <LineCounts changes={v.lineChanges} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {cursor && (
          <button type="button" className="link" onClick={() => void load(cursor)}>
            Load older versions
          </button>
        )}
      </div>
      {current && <AuditDiffPane id={current} height={380} />}
    </div>
  );
}
