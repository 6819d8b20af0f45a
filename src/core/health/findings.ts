// The findings queue: contradictions, duplicates and secrets in the current memory files. A scan
// adds new findings (a finding's key is stable, so scanning twice adds nothing) and closes open
// ones whose lines are gone. Resolving writes the file through the guardian's crash-safe, locked
// write path (a recorded curator write) and records a correction of the write that introduced the
// stale line, so it becomes a training signal.
import { ulid } from 'ulid';
import { MEMORY_FILES, type MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { readMemoryFile } from '../files/memoryFiles';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { sha256 } from '../text/diff';
import { findConflicts, statementOf } from './conflicts';
import { scanMemoryContents } from './secrets';

export type FindingStatus = 'open' | 'resolved' | 'merged' | 'dismissed';
export type FindingKind = 'contradiction' | 'duplicate' | 'secret';

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

interface FindingRow {
  id: string;
  kind: FindingKind;
  attribute: string | null;
  status: FindingStatus;
  detail: string;
  resolution: string | null;
  resolved_by: string | null;
  resolved_at: number | null;
  created_at: number;
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
const keyOf = (kind: string, lines: FindingLine[]) => `${kind}:${sha256(lines.map((l) => `${l.fileName}\n${statementOf(l.text)}`).sort().join('\n\n'))}`;

function candidates(contents: Partial<Record<MemoryFileName, string | null>>): Candidate[] {
  const lines = MEMORY_FILES.flatMap((f) => (contents[f] ?? '').split('\n').map((text, i) => ({ fileName: f, line: i + 1, text })));
  const out: Candidate[] = findConflicts(lines).map((g) => {
    const fl = g.lines.map((l, i) => ({ fileName: l.fileName as MemoryFileName, line: l.line, text: l.text, values: g.values[i] }));
    return { key: keyOf(g.kind, fl), kind: g.kind, attribute: g.attribute, detail: { lines: fl } };
  });
  for (const s of scanMemoryContents(contents)) {
    const fl = [{ fileName: s.fileName, line: s.line, text: s.text }];
    out.push({ key: `secret:${sha256(`${s.fileName}\n${s.text}\n${s.kind}\n${s.value}`)}`, kind: 'secret', attribute: s.kind, detail: { lines: fl, piiKind: s.kind, secret: s.secret } });
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
    const insert = ctx.db.prepare('INSERT OR IGNORE INTO health_findings (id, key, kind, attribute, detail, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    // Line numbers move as files change: an open finding takes the positions of this scan.
    const refresh = ctx.db.prepare("UPDATE health_findings SET detail = json_patch(detail, json_object('lines', json(?))) WHERE key = ? AND status = 'open'");
    let added = 0;
    for (const c of found) {
      added += insert.run(ulid(at), c.key, c.kind, c.attribute, JSON.stringify(c.detail), at).changes;
      refresh.run(JSON.stringify(c.detail.lines), c.key);
    }
    const keys = JSON.stringify(found.map((c) => c.key));
    const closed = ctx.db
      .prepare(
        `UPDATE health_findings SET status = 'resolved', resolved_by = 'scan', resolved_at = ?, resolution = json_object('note', 'the lines are no longer in memory')
         WHERE status = 'open' AND key NOT IN (SELECT value FROM json_each(?))`,
      )
      .run(at, keys).changes;
    return { found: found.length, added, closed, open: listFindings(ctx, { status: 'open' }) };
  });
}

export function listFindings(ctx: ServiceContext, input: { status?: FindingStatus; kind?: FindingKind; limit?: number } = {}): Finding[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (input.status) {
    where.push('status = ?');
    params.push(input.status);
  }
  if (input.kind) {
    where.push('kind = ?');
    params.push(input.kind);
  }
  const rows = ctx.db
    .prepare(`SELECT * FROM health_findings ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY CASE kind WHEN 'contradiction' THEN 0 WHEN 'secret' THEN 1 ELSE 2 END, json_array_length(detail, '$.lines') DESC, created_at DESC, id LIMIT ?`)
    .all(...params, input.limit ?? 500) as FindingRow[];
  return rows.map(findingFromRow);
}

export function getFinding(ctx: ServiceContext, id: string): Finding {
  const row = ctx.db.prepare('SELECT * FROM health_findings WHERE id = ?').get(id) as FindingRow | undefined;
  if (!row) throw new AppError('NotFound', `finding ${id} not found`);
  return findingFromRow(row);
}

export function closeFinding(ctx: ServiceContext, id: string, status: Exclude<FindingStatus, 'open'>, resolution: Record<string, unknown>, by?: string): Finding {
  const changed = ctx.db
    .prepare("UPDATE health_findings SET status = ?, resolution = ?, resolved_by = ?, resolved_at = ? WHERE id = ? AND status = 'open'")
    .run(status, JSON.stringify(resolution), by ?? actorOf(ctx), nowOf(ctx), id).changes;
  if (!changed) throw new AppError('Conflict', `finding ${id} is no longer open`);
  return getFinding(ctx, id);
}
