// Curators of a workspace (curators): names, roles, token hashes, the local desktop curator.
import type { DB } from '../connection';
import { stmt } from '../statements';

export type CuratorRole = 'curator' | 'lead';

export interface CuratorRow {
  name: string;
  token_hash: string | null;
  role: CuratorRole;
  is_local: number;
  created_at: number;
  revoked_at: number | null;
}

/** A curator by name, case-insensitively. */
export function findCuratorByName(db: DB, name: string): CuratorRow | undefined {
  return stmt<CuratorRow>(db, 'SELECT * FROM curators WHERE name = ? COLLATE NOCASE').get(name);
}

export function findActiveCuratorByTokenHash(db: DB, tokenHash: string): CuratorRow | undefined {
  return stmt<CuratorRow>(db, 'SELECT * FROM curators WHERE token_hash = ? AND revoked_at IS NULL').get(tokenHash);
}

/** Active curators first, then by name. */
export function listCuratorRows(db: DB): CuratorRow[] {
  return stmt<CuratorRow>(db, 'SELECT * FROM curators ORDER BY revoked_at IS NOT NULL, name COLLATE NOCASE').all();
}

export function insertCurator(db: DB, c: { name: string; tokenHash: string; role: CuratorRole; createdAt: number }): void {
  stmt(db, 'INSERT INTO curators (name, token_hash, role, created_at) VALUES (?, ?, ?, ?)').run(c.name, c.tokenHash, c.role, c.createdAt);
}

/** Gives a curator a new token and role, lifting a revocation. */
export function reissueCuratorToken(db: DB, name: string, tokenHash: string, role: CuratorRole): void {
  stmt(db, 'UPDATE curators SET token_hash = ?, role = ?, revoked_at = NULL WHERE name = ?').run(tokenHash, role, name);
}

/** Revokes the curator's token and hands their reservations back to the queue. */
export function revokeCuratorToken(db: DB, name: string, at: number): void {
  stmt(db, 'UPDATE curators SET revoked_at = ?, token_hash = NULL WHERE name = ?').run(at, name);
  stmt(db, 'DELETE FROM review_reservations WHERE curator = ?').run(name);
}

export function hasLocalCurator(db: DB): boolean {
  return stmt(db, 'SELECT 1 FROM curators WHERE is_local = 1').get() !== undefined;
}

/** The active local curator's name. */
export function findLocalCuratorName(db: DB): string | undefined {
  return stmt(db, 'SELECT name FROM curators WHERE is_local = 1 AND revoked_at IS NULL').pluck().get() as string | undefined;
}

/** Names the local curator: renames the one local row, or adds it as a lead. */
export function upsertLocalCurator(db: DB, name: string, at: number): void {
  if (hasLocalCurator(db)) stmt(db, 'UPDATE curators SET name = ?, revoked_at = NULL WHERE is_local = 1').run(name);
  else stmt(db, "INSERT INTO curators (name, role, is_local, created_at) VALUES (?, 'lead', 1, ?)").run(name, at);
}
