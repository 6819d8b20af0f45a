// Writes flagged for secrets or personal data (audit_secret_flags) and how far the scan has read
// (health_scan_state). Only detector kinds and counts are stored, never the values.
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface UnscannedWrite {
  rowid: number;
  id: string;
  diff: string;
  created_at: number;
}

export function upsertSecretFlag(db: DB, auditId: string, kindsJson: string, count: number, at: number): void {
  stmt(db, 'INSERT OR REPLACE INTO audit_secret_flags (audit_id, kinds, count, scanned_at) VALUES (?, ?, ?, ?)').run(
    auditId,
    kindsJson,
    count,
    at,
  );
}

/** Written writes with a diff after the given audit rowid, in rowid order, at most `limit`. */
export function listWritesToScan(db: DB, afterRowid: number, limit: number): UnscannedWrite[] {
  return stmt<UnscannedWrite>(
    db,
    `SELECT a.rowid AS rowid, a.id, a.diff, a.created_at FROM write_guardian_audit a
     WHERE a.rowid > ? AND a.diff IS NOT NULL AND a.status IN ('written', 'rolled_back') ORDER BY a.rowid LIMIT ?`,
  ).all(afterRowid, limit);
}

export function findLastAuditRowid(db: DB): number {
  return (stmt(db, 'SELECT max(rowid) FROM write_guardian_audit').pluck().get() as number | null) ?? 0;
}

export function findScanPosition(db: DB, name: string): number {
  return (stmt(db, 'SELECT last_rowid FROM health_scan_state WHERE name = ?').pluck().get(name) as number | undefined) ?? 0;
}

export function saveScanPosition(db: DB, name: string, lastRowid: number): void {
  stmt(
    db,
    'INSERT INTO health_scan_state (name, last_rowid) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET last_rowid = excluded.last_rowid',
  ).run(name, lastRowid);
}

export function deleteScanPosition(db: DB, name: string): void {
  stmt(db, 'DELETE FROM health_scan_state WHERE name = ?').run(name);
}

export function listSecretFlagsFor(db: DB, auditIds: string[]): Array<{ audit_id: string; kinds: string; count: number }> {
  return stmt<{ audit_id: string; kinds: string; count: number }>(
    db,
    'SELECT audit_id, kinds, count FROM audit_secret_flags WHERE audit_id IN (SELECT value FROM json_each(?))',
  ).all(JSON.stringify(auditIds));
}

/** The kinds (JSON arrays) of every flagged write. */
export function listSecretFlagKinds(db: DB): string[] {
  return stmt(db, 'SELECT kinds FROM audit_secret_flags').pluck().all() as string[];
}
