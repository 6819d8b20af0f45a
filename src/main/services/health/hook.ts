// What the recorder calls after inserting each audit, inside the same transaction: the write joins
// its file's hash chain and is scanned for secrets and personal data as it arrives.
import type { DB } from '../../db/connection';
import { flagWriteIfSensitive } from './secrets';
import { chainWrite } from './versions';

export function onWriteRecorded(db: DB, auditId: string, diff: string | null, createdAt: number): void {
  chainWrite(db, auditId);
  flagWriteIfSensitive(db, auditId, diff, createdAt);
}
