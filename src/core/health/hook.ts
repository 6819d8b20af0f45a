// What the recorder calls after inserting each audit, inside the same transaction: the write joins
// its file's hash chain. Secret scanning is not done here: the recorder runs in the plugin's write
// path (and is published as a small package), so the workbench scans new writes as they arrive
// (flagNewWrites) before any list or count shows them.
import type { DB } from '../db/connection';
import { hasMemoryVersionsTable } from '../db/repositories/memoryVersions';
import { chainWrite } from './versions';

const ready = new WeakSet<DB>();

/** A database opened without the health migration (a partial migration in a test, an old schema) is left alone. */
function hasHealthTables(db: DB): boolean {
  if (ready.has(db)) return true;
  if (!hasMemoryVersionsTable(db)) return false;
  ready.add(db);
  return true;
}

export function onWriteRecorded(db: DB, auditId: string): void {
  if (!hasHealthTables(db)) return;
  chainWrite(db, auditId);
}
