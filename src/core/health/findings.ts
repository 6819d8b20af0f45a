// The findings queue: contradictions, duplicates and secrets in the current memory files. A scan
// adds new findings (a finding's key is stable, so scanning twice adds nothing) and closes open
// ones whose lines are gone. Resolving writes the file through the guardian's crash-safe, locked
// write path (a recorded curator write) and records a correction of the write that introduced the
// stale line, so it becomes a training signal.
import { ulid } from 'ulid';
import { MEMORY_FILES, type MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import {
  closeFindingsNotIn,
  closeOpenFinding,
  findFindingById,
  insertFindingIfNew,
  listFindingRows,
  refreshOpenFindingLines,
  type FindingKind,
  type FindingRow,
  type FindingStatus,
} from '../db/repositories/healthFindings';
import { readMemoryFile } from '../files/memoryFiles';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { sha256 } from '../text/diff';
import { findConflicts, statementOf } from './conflicts';
import { scanMemoryContents } from './secrets';

export type { FindingKind, FindingStatus } from '../db/repositories/healthFindings';

export interface FindingLine {
  fileName: MemoryFileName;
  line: number;
  text: string;
  values?: string[];
}

export interface FindingDetail {
  lines: FindingLine[];
  /** Secrets: the detector kind and whether it is a credential (not just personal data). */
  piiKind?: string;
  secret?: boolean;
  secondOpinion?: { verdict: string; reason: string; model: string } | { error: string };
}

export interface Finding {
  id: string;
  kind: FindingKind;
  attribute: string | null;
  status: FindingStatus;
  detail: FindingDetail;
  resolution: Record<string, unknown> | null;
  resolvedBy: string | null;
  resolvedAt: number | null;
  createdAt: number;
}

export const findingFromRow = (r: FindingRow): Finding => ({
  id: r.id,
  kind: r.kind,
  attribute: r.attribute,
  status: r.status,
  detail: JSON.parse(r.detail) as FindingDetail,
  resolution: r.resolution ? (JSON.parse(r.resolution) as Record<string, unknown>) : null,
  resolvedBy: r.resolved_by,
  resolvedAt: r.resolved_at,
  createdAt: r.created_at,
});

export function readMemoryContents(ctx: ServiceContext): Partial<Record<MemoryFileName, string | null>> {
  const out: Partial<Record<MemoryFileName, string | null>> = {};
  for (const f of MEMORY_FILES) {
    try {
      out[f] = readMemoryFile(ctx.workspaceDir, f);
    } catch {
      /* unsafe to read: left out of the scan */
    }
  }
  return out;
}

interface Candidate {
  key: string;
  kind: FindingKind;
  attribute: string | null;
  detail: FindingDetail;
}

// The key never holds a value in clear text: secrets are keyed by a hash.
const keyOf = (kind: string, lines: FindingLine[]) =>
  `${kind}:${sha256(
    lines
      .map((l) => `${l.fileName}\n${statementOf(l.text)}`)
      .sort()
      .join('\n\n'),
  )}`;

function candidates(contents: Partial<Record<MemoryFileName, string | null>>): Candidate[] {
  const lines = MEMORY_FILES.flatMap((f) => (contents[f] ?? '').split('\n').map((text, i) => ({ fileName: f, line: i + 1, text })));
  const out: Candidate[] = findConflicts(lines).map((g) => {
    const fl = g.lines.map((l, i) => ({ fileName: l.fileName as MemoryFileName, line: l.line, text: l.text, values: g.values[i] }));
    return { key: keyOf(g.kind, fl), kind: g.kind, attribute: g.attribute, detail: { lines: fl } };
  });
  for (const s of scanMemoryContents(contents)) {
    const fl = [{ fileName: s.fileName, line: s.line, text: s.text }];
    out.push({
      key: `secret:${sha256(`${s.fileName}\n${s.text}\n${s.kind}\n${s.value}`)}`,
      kind: 'secret',
      attribute: s.kind,
      detail: { lines: fl, piiKind: s.kind, secret: s.secret },
    });
  }
  return out;
}

export interface ScanResult {
  found: number;
  added: number;
  closed: number;
  open: Finding[];
}

/** Scans the current memory files and updates the queue. */
export function scanMemoryHealth(ctx: ServiceContext): ScanResult {
  const found = candidates(readMemoryContents(ctx));
  const at = nowOf(ctx);
  return writeTx(ctx.db, () => {
    let added = 0;
    for (const c of found) {
      added += insertFindingIfNew(ctx.db, {
        id: ulid(at),
        key: c.key,
        kind: c.kind,
        attribute: c.attribute,
        detailJson: JSON.stringify(c.detail),
        createdAt: at,
      });
      // Line numbers move as files change: an open finding takes the positions of this scan.
      refreshOpenFindingLines(ctx.db, c.key, JSON.stringify(c.detail.lines));
    }
    const closed = closeFindingsNotIn(
      ctx.db,
      found.map((c) => c.key),
      at,
    );
    return { found: found.length, added, closed, open: listFindings(ctx, { status: 'open' }) };
  });
}

export function listFindings(ctx: ServiceContext, input: { status?: FindingStatus; kind?: FindingKind; limit?: number } = {}): Finding[] {
  return listFindingRows(ctx.db, { status: input.status, kind: input.kind, limit: input.limit ?? 500 }).map(findingFromRow);
}

export function getFinding(ctx: ServiceContext, id: string): Finding {
  const row = findFindingById(ctx.db, id);
  if (!row) throw new AppError('NotFound', `finding ${id} not found`);
  return findingFromRow(row);
}

export function closeFinding(
  ctx: ServiceContext,
  id: string,
  status: Exclude<FindingStatus, 'open'>,
  resolution: Record<string, unknown>,
  by?: string,
): Finding {
  const changed = closeOpenFinding(ctx.db, id, status, JSON.stringify(resolution), by ?? actorOf(ctx), nowOf(ctx));
  if (!changed) throw new AppError('Conflict', `finding ${id} is no longer open`);
  return getFinding(ctx, id);
}
