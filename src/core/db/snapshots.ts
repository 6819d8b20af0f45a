import { ulid } from 'ulid';
import type Database from 'better-sqlite3';
import type { MemoryFileName, FileSnapshot } from '../../shared/domain';
import { sha256 } from '../text/diff';
import type { DB } from './connection';

interface SnapshotStatements {
  findByHash: Database.Statement;
  insert: Database.Statement;
  byId: Database.Statement;
}

// Preparing costs more than running these small statements, and bulk ingest calls them per write.
const statementCache = new WeakMap<DB, SnapshotStatements>();

function statements(db: DB): SnapshotStatements {
  let s = statementCache.get(db);
  if (!s) {
    s = {
      findByHash: db.prepare('SELECT id FROM file_snapshots WHERE file_name = ? AND content_hash = ?').pluck(),
      insert: db.prepare('INSERT INTO file_snapshots (id, file_name, content, content_hash, created_at) VALUES (?, ?, ?, ?, ?)'),
      byId: db.prepare(
        'SELECT id, file_name AS fileName, content, content_hash AS contentHash, created_at AS createdAt FROM file_snapshots WHERE id = ?',
      ),
    };
    statementCache.set(db, s);
  }
  return s;
}

/**
 * Stores file content once per (file, SHA-256) and returns the snapshot id. Call inside a transaction.
 * `hash`, when the caller already has it, must be sha256(content).
 */
export function storeSnapshot(
  db: DB,
  fileName: MemoryFileName,
  content: string,
  createdAt: number,
  id?: string,
  hash: string = sha256(content),
): string {
  const s = statements(db);
  const existing = s.findByHash.get(fileName, hash) as string | undefined;
  if (existing) return existing;
  const newId = id ?? ulid(createdAt);
  s.insert.run(newId, fileName, content, hash, createdAt);
  return newId;
}

export function getSnapshot(db: DB, id: string): FileSnapshot | undefined {
  return statements(db).byId.get(id) as FileSnapshot | undefined;
}
