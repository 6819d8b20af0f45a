// file_state: what the workbench last saw of each memory file (recorded writes move it by trigger).
import type { MemoryFileName } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface FileStateRow {
  fileName: MemoryFileName;
  snapshotId: string | null;
  contentHash: string | null;
  auditId: string | null;
  observedAt: number;
}

export function findFileState(db: DB, fileName: MemoryFileName): FileStateRow | undefined {
  return stmt<FileStateRow>(
    db,
    `SELECT file_name AS fileName, snapshot_id AS snapshotId, content_hash AS contentHash, audit_id AS auditId, observed_at AS observedAt
     FROM file_state WHERE file_name = ?`,
  ).get(fileName);
}

/** Sets a file's state; an older observation never moves observed_at back. */
export function upsertFileState(
  db: DB,
  s: { fileName: MemoryFileName; snapshotId: string | null; contentHash: string | null; auditId: string | null; at: number },
): void {
  stmt(
    db,
    `INSERT INTO file_state (file_name, snapshot_id, content_hash, audit_id, observed_at) VALUES (@fileName, @snapshotId, @contentHash, @auditId, @at)
     ON CONFLICT (file_name) DO UPDATE SET snapshot_id = excluded.snapshot_id, content_hash = excluded.content_hash,
       audit_id = excluded.audit_id, observed_at = max(file_state.observed_at, excluded.observed_at)`,
  ).run(s);
}
