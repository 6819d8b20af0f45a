// OpenClaw's daily memory notes: memory/YYYY-MM-DD.md in the agent workspace (its session-memory
// hook also writes memory/YYYY-MM-DD-<slug>.md). They are kept as read-only documents linked by
// their date: searchable, and shown beside the sessions of that day. The workbench never writes
// them back; a note that changed on disk replaces its copy on the next import.
import fs from 'node:fs';
import path from 'node:path';
import type { DailyNote, DailyNoteHit } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { findDailyNoteHash, listDailyNotesBetween, searchDailyNoteRows, upsertDailyNote } from '../db/repositories/dailyNotes';
import { parseTextQuery, snippet } from '../search/fts';
import { nowOf, type ServiceContext } from '../context';
import { finishImport } from './finish';
import { hashOf } from './ids';
import { serialized } from './serialize';
import type { ImportReport } from '../../shared/contract';
import { ReportBuilder } from './report';

export interface DailyNotesInput {
  /** An OpenClaw workspace (holding memory/), the memory folder itself, or one note file. */
  source: string;
}

const NOTE_NAME = /^(\d{4}-\d{2}-\d{2})(?:-[^/\\]+)?\.md$/;
const MAX_NOTE_BYTES = 8 * 1024 * 1024;
const MAX_DAYS_LISTED = 62;

/** The day a note is about, or undefined when the name is not a note's or the date is not a real day. */
export function noteDate(name: string): string | undefined {
  const m = NOTE_NAME.exec(name);
  if (!m) return undefined;
  const t = Date.parse(`${m[1]}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === m[1] ? m[1] : undefined;
}

function noteFiles(source: string): string[] {
  const abs = path.resolve(source);
  if (!fs.existsSync(abs)) throw new AppError('NotFound', `${source} does not exist`);
  if (fs.statSync(abs).isFile()) {
    if (!noteDate(path.basename(abs))) throw new AppError('Invalid', `${source} is not a daily note: expected a name like 2026-11-20.md`);
    return [abs];
  }
  const dir =
    fs.existsSync(path.join(abs, 'memory')) && fs.statSync(path.join(abs, 'memory')).isDirectory() ? path.join(abs, 'memory') : abs;
  return fs
    .readdirSync(dir)
    .filter((f) => noteDate(f) && fs.statSync(path.join(dir, f)).isFile())
    .sort()
    .map((f) => path.join(dir, f));
}

export function importDailyNotes(ctx: ServiceContext, input: DailyNotesInput): Promise<ImportReport> {
  return serialized(ctx.db, 'daily-notes', async () => {
    const report = new ReportBuilder('daily-notes', input.source, nowOf(ctx));
    const files = noteFiles(input.source);
    if (!files.length) report.note(`No daily notes (memory/YYYY-MM-DD.md) were found at ${input.source}.`);
    const now = nowOf(ctx);
    writeTx(ctx.db, () => {
      for (const file of files) {
        const st = fs.statSync(file);
        report.report.files.push({ path: file, fromOffset: 0, bytesRead: st.size, linesRead: 1, restarted: false });
        if (st.size > MAX_NOTE_BYTES) {
          report.skip(file, 0, `larger than ${MAX_NOTE_BYTES / 1024 / 1024} MB; not imported`);
          continue;
        }
        let content: string;
        try {
          content = new TextDecoder('utf-8', { fatal: true }).decode(fs.readFileSync(file));
        } catch {
          report.skip(file, 0, 'invalid UTF-8');
          continue;
        }
        report.report.linesUnderstood++;
        const hash = hashOf(content);
        const before = findDailyNoteHash(ctx.db, file);
        if (before === hash) {
          report.report.alreadyPresent++;
          continue;
        }
        upsertDailyNote(ctx.db, { date: noteDate(path.basename(file))!, path: file, content, hash, mtime: Math.floor(st.mtimeMs), now });
        if (before === undefined) report.count('daily_notes');
        else report.count('daily notes updated from disk');
      }
    });
    return finishImport(ctx, report, { recordExternalChanges: false });
  });
}

/** Notes of the days from..to (YYYY-MM-DD, inclusive), oldest first. */
export function listDailyNotes(ctx: ServiceContext, from: string, to: string): DailyNote[] {
  const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;
  if (!Number.isFinite(span) || span < 0) throw new AppError('Invalid', `the range ${from} to ${to} is not a valid range of days`);
  if (span >= MAX_DAYS_LISTED) throw new AppError('Invalid', `at most ${MAX_DAYS_LISTED} days at a time (asked ${span + 1})`);
  return listDailyNotesBetween(ctx.db, from, to);
}

/**
 * Full-text search over the notes: terms of 3+ characters use the trigram index (Chinese has no
 * spaces, so a phrase is a term), shorter ones are checked with instr() on a bounded scan.
 */
export function searchDailyNotes(ctx: ServiceContext, text: string, limit = 50): DailyNoteHit[] {
  const q = parseTextQuery(text);
  if (!q.terms.length) throw new AppError('Invalid', 'search text is required');
  const rows = searchDailyNoteRows(ctx.db, q.match, q.shortTerms, limit);
  return rows.map((r) => {
    const s = snippet(r.content, q.terms);
    return { date: r.date, path: r.path, snippet: s.text, matches: s.matches };
  });
}
