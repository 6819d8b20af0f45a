// What the recorder calls after inserting each audit, inside the same transaction: the write joins
// its file's hash chain. Secret scanning is not done here: the recorder runs in the plugin's write
// path (and is published as a small package), so the workbench scans new writes as they arrive
// (flagNewWrites) before any list or count shows them.
import type { DB } from '../db/connection';
import { hasMemoryVersionsTable, type ChainableAudit } from '../db/repositories/memoryVersions';
import { chainAudit, chainWrite } from './versions';

const ready = new WeakSet<DB>();

/** A database opened without the health migration (a partial migration in a test, an old schema) is left alone. */
function hasHealthTables(db: DB): boolean {
  if (ready.has(db)) return true;
  if (!hasMemoryVersionsTable(db)) return false;
  ready.add(db);
  return true;
}

/**
 * `known` spares reading back the row just inserted: the write's chain fields as the recorder holds
 * them, or null when the write is not a version (refused, failed, skipped, content unknown).
 */
export function onWriteRecorded(db: DB, auditId: string, known?: ChainableAudit | null): void {
  if (known === null || !hasHealthTables(db)) return;
  if (known) chainAudit(db, known);
  else chainWrite(db, auditId);
}
