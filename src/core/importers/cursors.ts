import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { ulid } from 'ulid';
import type { DB } from '../db/connection';
import {
  findImportCursor,
  findImportState,
  findSessionForAlias,
  insertImportRun,
  insertSessionAlias,
  saveImportCursor,
  saveImportState,
} from '../db/repositories/imports';
import type { ImportReport } from '../../shared/contract';

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
  const row = findImportCursor(db, importer, sourcePath);
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
  saveImportCursor(db, {
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
  const raw = findImportState(db, scope);
  return raw ? (JSON.parse(raw) as T) : undefined;
}

export function saveState(db: DB, scope: string, state: unknown, now: number): void {
  saveImportState(db, scope, JSON.stringify(state), now);
}

export function recordRun(db: DB, report: ImportReport): string {
  const id = ulid(report.startedAt);
  insertImportRun(db, {
    id,
    importer: report.importer,
    source: report.source,
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    status: report.status,
    inserted: JSON.stringify(report.inserted),
    skippedCount: report.skippedCount,
    report: JSON.stringify({ ...report, skipped: report.skipped.slice(0, 200) }),
  });
  return id;
}

/** Links a foreign session key (OpenClaw's) to the workbench session it means. Returns true when new. */
export function linkSessionKey(db: DB, alias: string, sessionId: string, source: string, now: number): boolean {
  if (alias === sessionId) return false;
  return insertSessionAlias(db, alias, sessionId, source, now);
}

export function sessionForAlias(db: DB, alias: string): string | undefined {
  return findSessionForAlias(db, alias);
}
