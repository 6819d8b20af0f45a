import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { ulid } from 'ulid';
import type { DB } from '../db/connection';
import type { ImportReport } from './report';

export type CursorImporter = 'reflection-logs' | 'guardian-log' | 'openclaw' | 'evals';

const HEAD_BYTES = 4096;

export interface FileCursor {
  sourcePath: string;
  fileSize: number;
  fileInode: string | null;
  headHash: string | null;
  headLength: number;
  byteOffset: number;
  lineNumber: number;
  state: unknown;
}

/** Where to start reading a file, and whether its cursor still describes it. */
export interface StartPoint {
  offset: number;
  line: number;
  state: unknown;
  restarted: boolean;
  size: number;
  inode: string;
}

function headHash(file: string, length: number): string | null {
  if (length <= 0) return null;
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    const n = fs.readSync(fd, buf, 0, length, 0);
    return createHash('sha256').update(buf.subarray(0, n)).digest('hex');
  } finally {
    fs.closeSync(fd);
  }
}

export function loadCursor(db: DB, importer: CursorImporter, sourcePath: string): FileCursor | undefined {
  const row = db
    .prepare(
      `SELECT source_path AS sourcePath, file_size AS fileSize, file_inode AS fileInode, head_hash AS headHash,
              head_length AS headLength, byte_offset AS byteOffset, line_number AS lineNumber, state
       FROM import_cursors WHERE importer = ? AND source_path = ?`,
    )
    .get(importer, sourcePath) as (Omit<FileCursor, 'state'> & { state: string | null }) | undefined;
  if (!row) return undefined;
  return { ...row, state: row.state ? JSON.parse(row.state) : null };
}

/**
 * Decides where a run resumes. A file that shrank below the cursor, or whose first bytes changed
 * (rotated, rewritten, replaced), is read again from the start; IDs derived from the source keep
 * that from duplicating rows.
 */
export function startPoint(db: DB, importer: CursorImporter, file: string): StartPoint {
  const st = fs.statSync(file);
  const inode = `${st.dev}:${st.ino}`;
  const cursor = loadCursor(db, importer, file);
  if (!cursor) return { offset: 0, line: 0, state: null, restarted: false, size: st.size, inode };
  const shrank = st.size < cursor.byteOffset;
  const headChanged = !shrank && cursor.headLength > 0 && headHash(file, cursor.headLength) !== cursor.headHash;
  if (shrank || headChanged) return { offset: 0, line: 0, state: null, restarted: true, size: st.size, inode };
  return { offset: cursor.byteOffset, line: cursor.lineNumber, state: cursor.state, restarted: false, size: st.size, inode };
}

export function saveCursor(
  db: DB,
  importer: CursorImporter,
  file: string,
  at: { offset: number; line: number; size: number; inode: string; state?: unknown },
  now: number,
): void {
  const headLength = Math.min(HEAD_BYTES, at.offset);
  db.prepare(
    `INSERT INTO import_cursors (importer, source_path, file_size, file_inode, head_hash, head_length, byte_offset, line_number, state, updated_at)
     VALUES (@importer, @file, @size, @inode, @hash, @headLength, @offset, @line, @state, @now)
     ON CONFLICT(importer, source_path) DO UPDATE SET file_size = excluded.file_size, file_inode = excluded.file_inode,
       head_hash = excluded.head_hash, head_length = excluded.head_length, byte_offset = excluded.byte_offset,
       line_number = excluded.line_number, state = excluded.state, updated_at = excluded.updated_at`,
  ).run({
    importer,
    file,
    size: Math.max(at.size, at.offset),
    inode: at.inode,
    hash: headHash(file, headLength),
    headLength,
    offset: at.offset,
    line: at.line,
    state: at.state === undefined || at.state === null ? null : JSON.stringify(at.state),
    now,
  });
}

export function loadState<T>(db: DB, scope: string): T | undefined {
  const raw = db.prepare('SELECT state FROM import_state WHERE scope = ?').pluck().get(scope) as string | undefined;
  return raw ? (JSON.parse(raw) as T) : undefined;
}

export function saveState(db: DB, scope: string, state: unknown, now: number): void {
  db.prepare(
    `INSERT INTO import_state (scope, state, updated_at) VALUES (?, ?, ?)
     ON CONFLICT(scope) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
  ).run(scope, JSON.stringify(state), now);
}

export function recordRun(db: DB, report: ImportReport): string {
  const id = ulid(report.startedAt);
  db.prepare(
    `INSERT INTO import_runs (id, importer, source, started_at, finished_at, status, inserted, skipped_count, report)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    report.importer,
    report.source,
    report.startedAt,
    report.finishedAt,
    report.status,
    JSON.stringify(report.inserted),
    report.skippedCount,
    JSON.stringify({ ...report, skipped: report.skipped.slice(0, 200) }),
  );
  return id;
}

/** Links a foreign session key (OpenClaw's) to the workbench session it means. Returns true when new. */
export function linkSessionKey(db: DB, alias: string, sessionId: string, source: string, now: number): boolean {
  if (alias === sessionId) return false;
  return db.prepare('INSERT OR IGNORE INTO session_aliases (alias, session_id, source, created_at) VALUES (?, ?, ?, ?)').run(alias, sessionId, source, now)
    .changes > 0;
}

export function sessionForAlias(db: DB, alias: string): string | undefined {
  return db.prepare('SELECT session_id FROM session_aliases WHERE alias = ?').pluck().get(alias) as string | undefined;
}
