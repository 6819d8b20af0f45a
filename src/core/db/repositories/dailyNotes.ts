// The agent's daily notes (memory/YYYY-MM-DD.md) as imported, with their trigram full-text index.
import type { DailyNote } from '../../../shared/contract';
import type { DB } from '../connection';
import { stmt } from '../statements';

/** Notes read by the short-term scan: the newest ones, so a term too short for the trigram index stays bounded. */
export const SHORT_TERM_SCAN = 5000;

export function findDailyNoteHash(db: DB, sourcePath: string): string | undefined {
  return stmt(db, 'SELECT content_hash FROM daily_notes WHERE source_path = ?').pluck().get(sourcePath) as string | undefined;
}

export function upsertDailyNote(
  db: DB,
  n: { date: string; path: string; content: string; hash: string; mtime: number; now: number },
): void {
  stmt(
    db,
    `
    INSERT INTO daily_notes (note_date, source_path, content, content_hash, file_mtime, imported_at, updated_at)
    VALUES (@date, @path, @content, @hash, @mtime, @now, @now)
    ON CONFLICT(source_path) DO UPDATE SET content = excluded.content, content_hash = excluded.content_hash,
      file_mtime = excluded.file_mtime, updated_at = excluded.updated_at`,
  ).run(n);
}

export function listDailyNotesBetween(db: DB, from: string, to: string): DailyNote[] {
  return stmt<DailyNote>(
    db,
    'SELECT note_date AS date, source_path AS path, content, updated_at AS updatedAt FROM daily_notes WHERE note_date BETWEEN ? AND ? ORDER BY note_date, source_path',
  ).all(from, to);
}

/**
 * Notes matching a trigram query (match, or null for none) that also contain every short term
 * (lower-cased; checked with instr()), newest first.
 */
export function searchDailyNoteRows(db: DB, match: string | null, shortTerms: string[], limit: number): Omit<DailyNote, 'updatedAt'>[] {
  // one placeholder per short term: the statement text depends only on how many there are
  const shortChecks = shortTerms.map(() => 'AND instr(lower(n.content), ?) > 0').join(' ');
  if (match) {
    return stmt<Omit<DailyNote, 'updatedAt'>>(
      db,
      `SELECT n.note_date AS date, n.source_path AS path, n.content FROM daily_notes_fts f JOIN daily_notes n ON n.seq = f.rowid
      WHERE daily_notes_fts MATCH ? ${shortChecks} ORDER BY n.note_date DESC LIMIT ?`,
    ).all(match, ...shortTerms, limit);
  }
  return stmt<Omit<DailyNote, 'updatedAt'>>(
    db,
    `SELECT date, path, content FROM (SELECT n.note_date AS date, n.source_path AS path, n.content FROM daily_notes n
      ORDER BY n.note_date DESC LIMIT ${SHORT_TERM_SCAN}) n WHERE 1 ${shortChecks} LIMIT ?`,
  ).all(...shortTerms, limit);
}
