// Imports OpenClaw sessions from both of its stores: the JSONL file store (sessions.json, one
// transcript per session, .reset./.deleted. archives, zstd-compressed or not) and the per-agent
// SQLite store of current OpenClaw (agents/<id>/agent/openclaw-agent.sqlite, with cold archives).
import fs from 'node:fs';
import path from 'node:path';
import { nowOf, type ServiceContext } from '../context';
import { withBulkCheckpoints } from '../db/bulk';
import type { Branch } from './branch';
import { saveCursor, startPoint } from './cursors';
import { finishImport } from './finish';
import { readLineBatches } from './lines';
import { applyEvents, jsonlEvents, zstdToText } from './openclawEvents';
import { discoverOpenClaw, entryForTranscript, sessionRowFor, transcriptBaseName, type OpenClawSource } from './openclawSessions';
import { importAgentDatabase } from './openclawStore';
import {
  newTranscriptState,
  scanBranch,
  scanLinesBranch,
  TranscriptReader,
  type TranscriptRun,
  type TranscriptState,
} from './openclawTranscript';
import { serialized } from './serialize';
import type { ImportReport } from '../../shared/contract';
import { ReportBuilder } from './report';
import { ImportStore } from './store';
import { importJsonLines } from './stream';

export interface OpenClawInput {
  /** An OpenClaw state dir (agents/<id>/sessions and agents/<id>/agent/openclaw-agent.sqlite), a sessions dir, an agent database, or one transcript file. */
  source: string;
  maxLineBytes?: number;
}

/** Compressed archives are read whole; a bigger one is reported instead of filling memory. */
const MAX_ARCHIVE_BYTES = 512 * 1024 * 1024;

export function importOpenClaw(ctx: ServiceContext, input: OpenClawInput): Promise<ImportReport> {
  // A batch commits every 2,000 lines, so with the default 1,000-page WAL nearly every commit checkpointed,
  // copying the turn, index and trigram pages of the batches before it again.
  return serialized(ctx.db, 'openclaw', () => withBulkCheckpoints(ctx.db, () => run(ctx, input)));
}

async function run(ctx: ServiceContext, input: OpenClawInput): Promise<ImportReport> {
  const report = new ReportBuilder('openclaw', input.source, nowOf(ctx));
  const src = discoverOpenClaw(input.source, report);
  const store = new ImportStore(ctx.db, report);
  // Turns are held and go in by one statement per flush; every batch flushes them before it commits (onCommit, applyEvents).
  store.holdTurns();
  const now = nowOf(ctx);
  const total = src.transcripts.reduce((n, f) => n + fs.statSync(f).size, 0);
  const progress = { done: 0, total, label: 'reading OpenClaw transcripts' };
  if (!src.transcripts.length && !src.entries.length && !src.databases.length && !src.compressedArchives.length) {
    report.note(`No OpenClaw transcripts, sessions.json or agent database were found at ${input.source}.`);
  }
  for (const [kind, n] of Object.entries(src.notTranscripts)) report.ignore(`${kind} (not session transcripts)`, n);

  // Sessions listed in sessions.json exist even when their transcript is gone.
  const described = new Set<string>();
  ctx.db
    .transaction(() => {
      for (const e of src.entries) {
        const row = sessionRowFor(ctx.db, e, e.sessionId, e.startedAt ?? e.updatedAt ?? now, now);
        store.upsertSession(row);
        described.add(row.id);
      }
    })
    .immediate();

  const shared: TranscriptRun = { ctx, store, report, now, described };

  for (const file of src.transcripts) {
    if (ctx.signal?.aborted) break;
    await importTranscriptFile(shared, src, file, input.maxLineBytes, progress);
  }
  for (const file of src.compressedArchives) {
    if (ctx.signal?.aborted) break;
    await importCompressedArchive(shared, src, file);
  }
  for (const db of src.databases) {
    if (ctx.signal?.aborted) break;
    await importAgentDatabase(shared, db);
  }
  return finishImport(ctx, report);
}

/** A file's lines for the branch scan, undecoded: it reads each line's first bytes only. */
const fileLines = (file: string, from: { offset: number; line: number }, end: number, maxLineBytes?: number) =>
  readLineBatches(file, { start: from.offset, startLine: from.line, end, maxLineBytes, raw: true });

function targetOf(src: OpenClawSource, file: string) {
  return {
    entry: entryForTranscript(src, file),
    transcriptKey: transcriptBaseName(file).replace(/\.jsonl$/, ''),
    sourceName: path.basename(file),
  };
}

async function importTranscriptFile(
  run: TranscriptRun,
  src: OpenClawSource,
  file: string,
  maxLineBytes: number | undefined,
  progress: { done: number; total: number; label: string },
): Promise<void> {
  const { ctx, report } = run;
  let sp = startPoint(ctx.db, 'openclaw', file);
  let state: TranscriptState = !sp.restarted && sp.state ? (sp.state as TranscriptState) : newTranscriptState();
  let active = await scanLinesBranch(fileLines(file, sp, sp.size, maxLineBytes), sp.line, sp.offset > 0 ? state.tip : null);
  if (active === 'rescan') {
    report.note(`${path.basename(file)} continued on another branch; it was read again from the start.`);
    sp = { ...sp, offset: 0, line: 0, state: null };
    state = newTranscriptState();
    active = (await scanLinesBranch(fileLines(file, sp, sp.size, maxLineBytes), 0, null)) as Branch;
  }
  const reader = new TranscriptReader(run, targetOf(src, file), state, active);
  await importJsonLines(
    ctx,
    report,
    {
      importer: 'openclaw',
      file,
      start: sp,
      end: sp.size,
      maxLineBytes,
      // TranscriptReader validates an entry before it writes, and its writes are single statements.
      savepointPerLine: false,
      cursorState: () => reader.state,
      onCommit: () => run.store.flushTurns(),
      handle: (e, line) => reader.handle(e, line.lineNumber),
    },
    { progress },
  );
  if (reader.state.open) report.note(`${path.basename(file)}: the last turn has no reply yet; it is kept for the next import.`);
}

/**
 * A `.jsonl.reset.<ts>.zst` archive: the history before a reset, compressed. It never changes, so
 * its cursor only says "read"; a replaced file (other head bytes) is read again, ids keep it single.
 */
async function importCompressedArchive(run: TranscriptRun, src: OpenClawSource, file: string): Promise<void> {
  const { ctx, report } = run;
  const sp = startPoint(ctx.db, 'openclaw', file);
  const fileReport = { path: file, fromOffset: sp.offset, bytesRead: 0, linesRead: 0, restarted: sp.restarted };
  report.report.files.push(fileReport);
  if (sp.offset >= sp.size && sp.size > 0) return;
  if (sp.size > MAX_ARCHIVE_BYTES) {
    report.skip(file, 0, `compressed archive larger than ${MAX_ARCHIVE_BYTES / 1024 / 1024} MB; not read`);
    return;
  }
  let text: string;
  try {
    text = zstdToText(fs.readFileSync(file));
  } catch (e) {
    report.skip(file, 0, `not a readable zstd archive (${(e as Error).message.slice(0, 80)})`);
    return;
  }
  const events = jsonlEvents(text);
  const branch = (await scanBranch(events, 0, null)) as Branch;
  const reader = new TranscriptReader(run, targetOf(src, file), newTranscriptState(), branch);
  applyEvents(run, reader, file, events, () => {
    // An archive ends its history: a turn still open there is complete as it is.
    reader.emit();
    saveCursor(ctx.db, 'openclaw', file, { offset: sp.size, line: events.length, size: sp.size, inode: sp.inode }, nowOf(ctx));
  });
  fileReport.bytesRead = sp.size;
  fileReport.linesRead = events.length;
}
