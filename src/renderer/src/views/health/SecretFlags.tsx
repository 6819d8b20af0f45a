// Writes that stored secrets or personal data: a badge in the Writes list and, on the write, the
// one-click removal (a recorded curator write plus a correction of this write).
import { useState } from 'react';
import type { WriteFlagDto } from '../../../../shared/contract';
import { ErrorMessage } from '../../components/ErrorMessage';
import type { ApiClient } from '../../lib/api';
import { useApi } from '../../lib/api';
import { useApiQuery } from '../../lib/queries';
import { useAction } from '../../lib/useAsync';

// Filled page by page as the Writes list loads, read by the rows it renders.
const known = new Map<string, WriteFlagDto | null>();

/** Loads the flags of a page of writes (one call per page). */
export async function loadWriteFlags(api: ApiClient, auditIds: string[]): Promise<void> {
  const missing = auditIds.filter((id) => !known.has(id));
  if (!missing.length) return;
  try {
    const flags = await api.call('health.writeFlags', { auditIds: missing });
    for (const id of missing) known.set(id, null);
    for (const f of flags) known.set(f.auditId, f);
  } catch {
    /* the badge is a hint; the list works without it */
  }
}

export function SecretBadge({ auditId }: { auditId: string }) {
  const f = known.get(auditId);
  if (!f) return null;
  return (
    <span
      className="chip chip-bad"
      data-testid="secret-badge"
      style={{ color: 'var(--bad, #b91c1c)', borderColor: 'var(--bad, #b91c1c)' }}
      title={`This write stored ${f.kinds.join(', ')} in memory`}
    >
      ⚠ {f.kinds.join(', ').toLowerCase()}
    </span>
  );
}

/** On a write's detail: what it stored, and the one action that removes it from the file. */
export function SecretActions({ auditId, onDone }: { auditId: string; onDone?: () => void }) {
  const api = useApi();
  const flags = useApiQuery('health.writeFlags', { auditIds: [auditId] });
  const remove = useAction(async () => {
    const r = await api.call('health.removeSecrets', { auditId });
    setRemoved(r.retryAuditId);
    onDone?.();
    return r;
  });
  const f = flags.data?.[0];
  const [removed, setRemoved] = useState<string | null>(null);
  if (!f) return null;
  if (removed) {
    return (
      <div className="notice" data-testid="secret-removed">
        Removed from the file by curator write <span className="mono">{removed}</span>; this write got a correction.
      </div>
    );
  }
  return (
    <div
      className="card stack"
      data-testid="secret-actions"
      style={{ borderColor: 'var(--bad, #b91c1c)', background: 'var(--bad-soft, #fdecec)' }}
    >
      <div>
        This write stored <strong>{f.kinds.join(', ')}</strong> in memory ({f.count} value{f.count === 1 ? '' : 's'}). Secrets and personal
        data do not belong in memory files.
      </div>
      <div className="row-flex">
        <button type="button" className="primary" disabled={remove.pending} onClick={() => void remove.run()} data-testid="remove-secret">
          Remove from the file
        </button>
        <span className="muted small">
          Writes the file without the value (a recorded curator write) and records a correction so the gate learns not to store it.
        </span>
      </div>
      {remove.pending && <div className="muted small">Removing…</div>}
      <ErrorMessage action="Removing the value" error={remove.error} />
    </div>
  );
}
