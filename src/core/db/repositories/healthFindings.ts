// The memory-health findings queue (health_findings): contradictions, duplicates and secrets, keyed
// so a second scan adds nothing. Detail and resolution are JSON the health service parses.
import type { DB } from '../connection';
import { stmt } from '../statements';

export type FindingStatus = 'open' | 'resolved' | 'merged' | 'dismissed';
export type FindingKind = 'contradiction' | 'duplicate' | 'secret';

export interface FindingRow {
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

/** Adds a finding unless one with its key exists; returns 1 when added. */
export function insertFindingIfNew(
  db: DB,
  f: { id: string; key: string; kind: FindingKind; attribute: string | null; detailJson: string; createdAt: number },
): number {
  return stmt(db, 'INSERT OR IGNORE INTO health_findings (id, key, kind, attribute, detail, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    f.id,
    f.key,
    f.kind,
    f.attribute,
    f.detailJson,
    f.createdAt,
  ).changes;
}

/** An open finding takes the line positions of the latest scan. */
export function refreshOpenFindingLines(db: DB, key: string, linesJson: string): void {
  stmt(db, "UPDATE health_findings SET detail = json_patch(detail, json_object('lines', json(?))) WHERE key = ? AND status = 'open'").run(
    linesJson,
    key,
  );
}

/** Resolves the open findings whose key is not among `keys` (their lines are gone); returns how many. */
export function closeFindingsNotIn(db: DB, keys: string[], at: number): number {
  return stmt(
    db,
    `UPDATE health_findings SET status = 'resolved', resolved_by = 'scan', resolved_at = ?, resolution = json_object('note', 'the lines are no longer in memory')
         WHERE status = 'open' AND key NOT IN (SELECT value FROM json_each(?))`,
  ).run(at, JSON.stringify(keys)).changes;
}

/** Findings, contradictions first, then those spanning more lines, newest first. */
export function listFindingRows(db: DB, filter: { status?: FindingStatus; kind?: FindingKind; limit: number }): FindingRow[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.status) {
    where.push('status = ?');
    params.push(filter.status);
  }
  if (filter.kind) {
    where.push('kind = ?');
    params.push(filter.kind);
  }
  const sql = `SELECT * FROM health_findings ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY CASE kind WHEN 'contradiction' THEN 0 WHEN 'secret' THEN 1 ELSE 2 END, json_array_length(detail, '$.lines') DESC, created_at DESC, id LIMIT ?`;
  return stmt<FindingRow>(db, sql).all(...params, filter.limit);
}

export function findFindingById(db: DB, id: string): FindingRow | undefined {
  return stmt<FindingRow>(db, 'SELECT * FROM health_findings WHERE id = ?').get(id);
}

/** Closes an open finding; returns 0 when it was no longer open. */
export function closeOpenFinding(
  db: DB,
  id: string,
  status: Exclude<FindingStatus, 'open'>,
  resolutionJson: string,
  by: string,
  at: number,
): number {
  return stmt(
    db,
    "UPDATE health_findings SET status = ?, resolution = ?, resolved_by = ?, resolved_at = ? WHERE id = ? AND status = 'open'",
  ).run(status, resolutionJson, by, at, id).changes;
}

export function setFindingSecondOpinion(db: DB, id: string, opinionJson: string): void {
  stmt(db, "UPDATE health_findings SET detail = json_set(detail, '$.secondOpinion', json(?)) WHERE id = ?").run(opinionJson, id);
}

export function countOpenFindingsByKind(db: DB): Array<{ kind: FindingKind; n: number }> {
  return stmt<{ kind: FindingKind; n: number }>(
    db,
    "SELECT kind, count(*) AS n FROM health_findings WHERE status = 'open' GROUP BY kind",
  ).all();
}
