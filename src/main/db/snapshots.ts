import { ulid } from 'ulid';
import type { MemoryFileName, FileSnapshot } from '../../shared/domain';
import { sha256 } from '../services/textDiff';
import type { DB } from './connection';

/** Stores file content once per (file, SHA-256) and returns the snapshot id. Call inside a transaction. */
export function storeSnapshot(db: DB, fileName: MemoryFileName, content: string, createdAt: number, id?: string): string {
  const hash = sha256(content);
  const existing = db
    .prepare('SELECT id FROM file_snapshots WHERE file_name = ? AND content_hash = ?')
    .pluck()
    .get(fileName, hash) as string | undefined;
  if (existing) return existing;
  const newId = id ?? ulid(createdAt);
  db.prepare('INSERT INTO file_snapshots (id, file_name, content, content_hash, created_at) VALUES (?, ?, ?, ?, ?)').run(
    newId,
    fileName,
    content,
    hash,
    createdAt,
  );
  return newId;
}

export function getSnapshot(db: DB, id: string): FileSnapshot | undefined {
  const row = db
    .prepare('SELECT id, file_name AS fileName, content, content_hash AS contentHash, created_at AS createdAt FROM file_snapshots WHERE id = ?')
    .get(id) as FileSnapshot | undefined;
  return row;
}
