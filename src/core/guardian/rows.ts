// Reading one audit or snapshot with the errors services want: a clear Invalid or NotFound, or Internal for a
// snapshot that should exist and does not.
import { AppError } from '../../shared/errors';
import type { DB } from '../db/connection';
import { findAuditDbRow, findSnapshotContent, type AuditDbRow } from '../db/repositories/audits';

export type { AuditDbRow } from '../db/repositories/audits';
export type { RollbackRecord } from '../db/repositories/rollbacks';

export function getAuditRow(db: DB, id: string): AuditDbRow {
  if (typeof id !== 'string' || !id.trim()) throw new AppError('Invalid', 'audit id: expected an id');
  const row = findAuditDbRow(db, id.trim());
  if (!row) throw new AppError('NotFound', `audit ${id} not found`);
  return row;
}

export function snapshotContent(db: DB, id: string | null): string | null {
  if (!id) return null;
  const content = findSnapshotContent(db, id);
  if (content === undefined) throw new AppError('Internal', `snapshot ${id} is missing`);
  return content;
}
