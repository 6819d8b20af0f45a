-- OpenClaw's daily memory notes (memory/YYYY-MM-DD.md in the agent workspace), kept read-only: the
-- workbench shows and searches them beside the sessions of their day and never writes them back.
CREATE TABLE daily_notes (
  seq          INTEGER PRIMARY KEY,
  note_date    TEXT NOT NULL CHECK (note_date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
  source_path  TEXT NOT NULL UNIQUE,
  content      TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  file_mtime   INTEGER,
  imported_at  INTEGER NOT NULL CHECK (imported_at >= 0),
  updated_at   INTEGER NOT NULL CHECK (updated_at >= 0)
) STRICT;
CREATE INDEX idx_daily_notes_date ON daily_notes(note_date);

-- Trigram, like turns_fts: Chinese (no spaces) is searchable by any 3+ character substring.
CREATE VIRTUAL TABLE daily_notes_fts USING fts5(content, content = 'daily_notes', content_rowid = 'seq', tokenize = 'trigram');
CREATE TRIGGER daily_notes_fts_ai AFTER INSERT ON daily_notes BEGIN
  INSERT INTO daily_notes_fts(rowid, content) VALUES (new.seq, new.content);
END;
CREATE TRIGGER daily_notes_fts_ad AFTER DELETE ON daily_notes BEGIN
  INSERT INTO daily_notes_fts(daily_notes_fts, rowid, content) VALUES ('delete', old.seq, old.content);
END;
CREATE TRIGGER daily_notes_fts_au AFTER UPDATE OF content ON daily_notes BEGIN
  INSERT INTO daily_notes_fts(daily_notes_fts, rowid, content) VALUES ('delete', old.seq, old.content);
  INSERT INTO daily_notes_fts(rowid, content) VALUES (new.seq, new.content);
END;
