import path from 'node:path';
import { writeTx, type DB } from '../db/connection';
import { nowOf, type ServiceContext } from '../context';
import { saveCursor, startPoint, type CursorImporter, type StartPoint } from './cursors';
import { decode, parseJsonObject, readLineBatches, type SourceLine } from './lines';
import type { ReportBuilder } from './report';

/** Thrown by a line handler: the line is skipped and counted with this reason; the import goes on. */
export class SkipLine extends Error {}

export const skipLine = (reason: string): never => {
  throw new SkipLine(reason);
};

/**
 * Runs one entry's handler (in its own savepoint when the caller opens one): a SkipLine or a
 * constraint the database enforces skips that entry alone, with the reason; anything else is a bug.
 */
export function handleEntry(report: ReportBuilder, source: string, position: number, run: () => void): void {
  try {
    run();
    report.report.linesUnderstood++;
  } catch (e) {
    if (e instanceof SkipLine) report.skip(source, position, e.message);
    else if ((e as { code?: unknown }).code && String((e as { code?: unknown }).code).startsWith('SQLITE_CONSTRAINT')) {
      report.skip(source, position, `the database refused it (${(e as Error).message})`);
    } else throw e;
  }
}

export interface FileImport {
  importer: CursorImporter;
  file: string;
  /** Handles one parsed line inside the batch transaction. Throw SkipLine to skip it. */
  handle: (value: Record<string, unknown>, line: SourceLine) => void;
  /** State to store with the cursor when a batch commits (what the next run needs to continue). */
  cursorState?: () => unknown;
  /** Runs inside each batch transaction after the lines (e.g. to persist cross-file state). */
  onCommit?: () => void;
  /** Called when the file is read again from the start (the cursor no longer matched it). */
  onRestart?: () => void;
  /** Restores per-file state from the cursor. */
  restore?: (state: unknown) => void;
  start?: StartPoint;
  /** Read no further than this byte offset. */
  end?: number;
  maxLineBytes?: number;
  /**
   * False when the handler never leaves a line half-written without one: its validation comes before its
   * writes, and each write is a statement SQLite rolls back alone. A savepoint per line costs two statements
   * and a copy of every page the line changes, on lines that mostly write nothing.
   */
  savepointPerLine?: boolean;
}

export interface StreamOptions {
  batchLines?: number;
  batchBytes?: number;
  /** Progress across all files of the run. */
  progress?: { done: number; total: number; label: string };
}

const REASONS: Record<NonNullable<SourceLine['problem']>, string> = {
  too_long: 'line too long',
  invalid_utf8: 'invalid UTF-8',
};

/**
 * A batch's lines as read: their bytes copied into one growing buffer, decoded only when handled. Decoded
 * at once, a batch's texts (2,000 lines, twice their bytes as UTF-16) lived until its last line was
 * handled, so every young-generation collection meanwhile copied them and promoted them to the old one.
 */
class LineBatch {
  readonly lines: Array<Omit<SourceLine, 'raw' | 'text'> & { at: number; length: number }> = [];
  bytes = 0;
  private buf = Buffer.allocUnsafe(1024 * 1024);
  private used = 0;

  /** Adds a line read with `raw`: its bytes are copied, the reader reuses its buffer. */
  add(line: SourceLine): void {
    const raw = line.raw;
    const length = raw?.length ?? 0;
    if (this.used + length > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.used + length));
      this.buf.copy(bigger, 0, 0, this.used);
      this.buf = bigger;
    }
    raw?.copy(this.buf, this.used);
    const { lineNumber, start, end, problem, bytes, unterminated } = line;
    this.lines.push({ lineNumber, start, end, problem, bytes, unterminated, at: this.used, length });
    this.used += length;
    this.bytes += bytes;
  }

  /**
   * Line i as readLines would have given it decoded: its text, or invalid_utf8. Built field by field: a rest
   * pattern and a spread per line took V8's generic property copy.
   */
  line(i: number): SourceLine {
    const { lineNumber, start, end, problem, bytes, unterminated, at, length } = this.lines[i]!;
    if (problem) return { lineNumber, start, end, problem, bytes, unterminated };
    const text = decode(this.buf.subarray(at, at + length));
    return text === undefined
      ? { lineNumber, start, end, problem: 'invalid_utf8', bytes, unterminated }
      : { lineNumber, start, end, problem, bytes, unterminated, text };
  }

  clear(): void {
    this.lines.length = 0;
    this.bytes = 0;
    this.used = 0;
  }
}

/** A read line (raw) decoded, as readLines would have given it without `raw`. */
function decoded(line: SourceLine): SourceLine {
  const { raw, ...rest } = line;
  if (rest.problem || !raw) return rest;
  const text = decode(raw);
  return text === undefined ? { ...rest, problem: 'invalid_utf8' } : { ...rest, text };
}

/** Hands one read line to the importer in its own savepoint; unreadable or non-object lines are skipped with a reason. */
function handleLine(report: ReportBuilder, job: FileImport, line: SourceLine, inSavepoint: (fn: () => void) => void): void {
  if (line.problem) {
    report.skip(job.file, line.lineNumber, `${REASONS[line.problem]} (${line.bytes} bytes)`);
    return;
  }
  const text = line.text ?? '';
  if (text.trim() === '') return;
  const parsed = parseJsonObject(text);
  if ('error' in parsed) {
    report.skip(job.file, line.lineNumber, parsed.error);
    return;
  }
  handleEntry(report, job.file, line.lineNumber, () => inSavepoint(() => job.handle(parsed.value, line)));
}

/** A cut multi-byte character or a half-written object at the end: the writer has not finished this line. */
function isUnfinishedLast(raw: SourceLine): boolean {
  if (!raw.unterminated || raw.problem === 'too_long') return false;
  const line = decoded(raw);
  const parsed = line.problem ? undefined : parseJsonObject(line.text ?? '');
  return !parsed || 'error' in parsed;
}

/**
 * Reads one JSON Lines file from its cursor, hands each line to the importer and commits in
 * batches: rows and the advanced cursor go in the same transaction, so a crash never leaves rows
 * without their cursor (or the reverse). A line that fails is rolled back alone (savepoint).
 * An unterminated last line that is not a complete JSON object is left for the next run.
 */
export async function importJsonLines(
  ctx: ServiceContext,
  report: ReportBuilder,
  job: FileImport,
  opts: StreamOptions = {},
): Promise<void> {
  const db: DB = ctx.db;
  const sp = job.start ?? startPoint(db, job.importer, job.file);
  if (sp.restarted) {
    report.note(`${path.basename(job.file)} changed since the last import (truncated or replaced) and was read again from the start.`);
    job.onRestart?.();
  } else if (sp.state !== null && sp.state !== undefined) job.restore?.(sp.state);
  const fileReport = { path: job.file, fromOffset: sp.offset, bytesRead: 0, linesRead: 0, restarted: sp.restarted };
  report.report.files.push(fileReport);

  const batchLines = opts.batchLines ?? 2000;
  const batchBytes = opts.batchBytes ?? 8 * 1024 * 1024;
  const batch = new LineBatch();
  let committed = { offset: sp.offset, line: sp.line };
  const lineTx = db.transaction((fn: () => void) => fn());
  const saveCursorAt = (offset: number, line: number) =>
    saveCursor(db, job.importer, job.file, { offset, line, size: sp.size, inode: sp.inode, state: job.cursorState?.() }, nowOf(ctx));

  const inSavepoint = job.savepointPerLine === false ? (fn: () => void) => fn() : (fn: () => void) => lineTx(fn);
  const handleOne = (line: SourceLine) => handleLine(report, job, line, inSavepoint);

  const flush = () => {
    const n = batch.lines.length;
    const last = batch.lines[n - 1];
    if (!last) return;
    writeTx(db, () => {
      for (let i = 0; i < n; i++) handleOne(batch.line(i));
      job.onCommit?.();
      saveCursorAt(last.end, last.lineNumber);
    });
    committed = { offset: last.end, line: last.lineNumber };
    fileReport.linesRead += n;
    batch.clear();
  };

  const progress = opts.progress;
  const base = progress?.done ?? 0;
  /** Takes a read's lines into the batch, flushing it when full; false at an unfinished last line or when aborted. */
  const take = (lines: readonly SourceLine[]): boolean => {
    for (const line of lines) {
      if (ctx.signal?.aborted) return false;
      if (isUnfinishedLast(line)) {
        report.report.pending.push({
          file: job.file,
          line: line.lineNumber,
          reason: `incomplete last line (${line.bytes} bytes, no newline yet)`,
        });
        return false;
      }
      batch.add(line);
      if (batch.lines.length >= batchLines || batch.bytes >= batchBytes) flush();
    }
    return true;
  };

  for await (const lines of readLineBatches(job.file, {
    start: sp.offset,
    startLine: sp.line,
    maxLineBytes: job.maxLineBytes,
    end: job.end,
    raw: true,
    onBytes: (pos) => {
      if (progress) {
        progress.done = base + (pos - sp.offset);
        ctx.progress?.(progress.done, progress.total, progress.label);
      }
    },
  })) {
    if (!take(lines)) break;
  }
  flush();
  if (committed.offset === sp.offset && sp.offset === 0 && fileReport.linesRead === 0 && !report.report.pending.length) {
    // An empty file still gets a cursor, so a rotated file that reappears with content is noticed.
    writeTx(db, () => saveCursorAt(0, 0));
  }
  fileReport.bytesRead = committed.offset - sp.offset;
}
