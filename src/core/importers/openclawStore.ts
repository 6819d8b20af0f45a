// Current OpenClaw keeps sessions in a per-agent SQLite database (agents/<id>/agent/openclaw-agent.sqlite):
// session_nodes (session key -> SessionEntry JSON), session_windows (each session id of a key),
// transcript_events (one entry per row, event_json TEXT or event_zstd BLOB) and
// session_transcript_cold_archives (a window's history moved to sessions/cold/<sha256>.jsonl.zst).
// The gateway owns that file and may be writing it: it is opened read-only, never checkpointed,
// read in short queries (no long read transaction), and a busy database ends the run politely.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { nativeBindingOption } from '../db/connection';
import { nowOf } from '../context';
import type { Branch } from './branch';
import { loadState, saveState } from './cursors';
import { isObj } from './fields';
import { parseJsonObject } from './lines';
import { applyEvents, jsonlEvents, rowText, zstdToText, type SourceEvent } from './openclawEvents';
import { sessionEntryFrom, sessionRowFor, type OpenClawSessionEntry } from './openclawSessions';
import { newTranscriptState, scanBranch, TranscriptReader, yieldToEventLoop, type TranscriptRun, type TranscriptState } from './openclawTranscript';

type Conn = Database.Database;

/** How long a query waits for the gateway's write lock before giving up (SQLITE_BUSY). */
const BUSY_TIMEOUT_MS = 2000;
const BATCH_ROWS = 500;
const MAX_COLD_BYTES = 512 * 1024 * 1024;

/** Where a session window was read up to (import_state, one scope per database and window). */
interface WindowCursor {
  lastSeq: number;
  position: number;
  generation: string | null;
  cold: string | null;
  state: TranscriptState;
}

interface ColdArchive {
  archiveName: string;
  lastSeq: number;
  storage: string;
  blob: Uint8Array | null;
}

interface Shape {
  zstd: boolean;
  createdAt: boolean;
  windows: boolean;
  nodes: boolean;
  cold: boolean;
  watermarks: boolean;
}

/** Which of the tables and columns this store has: older schemas lack some, tests and tools build subsets. */
function shapeOf(conn: Conn): Shape | undefined {
  const columns = (table: string) => new Set((conn.prepare(`PRAGMA table_info(${JSON.stringify(table)})`).all() as Array<{ name: string }>).map((c) => c.name));
  const has = (table: string, ...cols: string[]) => {
    const c = columns(table);
    return cols.every((x) => c.has(x));
  };
  if (!has('transcript_events', 'session_id', 'seq', 'event_json')) return undefined;
  const events = columns('transcript_events');
  return {
    zstd: events.has('event_zstd'),
    createdAt: events.has('created_at'),
    windows: has('session_windows', 'session_id', 'session_key'),
    nodes: has('session_nodes', 'session_key', 'current_session_id', 'entry_json'),
    cold: has('session_transcript_cold_archives', 'session_id', 'archive_name', 'last_seq', 'storage', 'archive_blob'),
    watermarks: has('transcript_rewrite_watermarks', 'session_id', 'generation'),
  };
}

const isBusy = (e: unknown) => /^SQLITE_(BUSY|LOCKED)/.test(String((e as { code?: unknown }).code ?? ''));

export async function importAgentDatabase(run: TranscriptRun, dbFile: string): Promise<void> {
  const { report } = run;
  const fileReport = { path: dbFile, fromOffset: 0, bytesRead: 0, linesRead: 0, restarted: false };
  report.report.files.push(fileReport);
  let conn: Conn | undefined;
  try {
    conn = new Database(dbFile, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS, ...nativeBindingOption() });
    const shape = shapeOf(conn);
    if (!shape) {
      report.note(`${path.basename(dbFile)} holds no session tables (an agent store from before sessions moved into SQLite).`);
      return;
    }
    const entries = describeSessions(run, conn, shape);
    const windows = conn.prepare('SELECT session_id AS id, max(seq) AS maxSeq FROM transcript_events GROUP BY session_id').all() as Array<{ id: string; maxSeq: number }>;
    const known = new Set(windows.map((w) => w.id));
    if (shape.cold) {
      for (const id of conn.prepare('SELECT session_id FROM session_transcript_cold_archives').pluck().all() as string[]) {
        if (!known.has(id)) windows.push({ id, maxSeq: -1 });
      }
    }
    for (const w of windows) {
      if (run.ctx.signal?.aborted) break;
      fileReport.linesRead += await importWindow(run, conn, shape, dbFile, w.id, w.maxSeq, entries);
    }
  } catch (e) {
    if (!isBusy(e)) throw e;
    report.note(`${dbFile} was busy (the gateway is writing); what was read is kept and the next import continues from there.`);
  } finally {
    conn?.close();
  }
}

/** Sessions exist from their SessionEntry even before (or without) transcript rows. */
function describeSessions(run: TranscriptRun, conn: Conn, shape: Shape): { byKey: Map<string, OpenClawSessionEntry>; keyOf: (sessionId: string) => string | undefined } {
  const byKey = new Map<string, OpenClawSessionEntry>();
  const keyBySession = new Map<string, string>();
  if (shape.nodes) {
    for (const n of conn.prepare('SELECT session_key AS key, current_session_id AS sid, entry_json AS json FROM session_nodes').all() as Array<{ key: string; sid: string; json: string | null }>) {
      const parsed = n.json ? parseJsonObject(n.json) : { value: {} };
      const value = 'error' in parsed ? {} : parsed.value;
      const sid = typeof value.sessionId === 'string' && value.sessionId ? value.sessionId : n.sid;
      byKey.set(n.key, sessionEntryFrom(n.key, value, sid));
      if (n.sid) keyBySession.set(n.sid, n.key);
    }
  }
  if (shape.windows) {
    for (const w of conn.prepare('SELECT session_id AS sid, session_key AS key FROM session_windows').all() as Array<{ sid: string; key: string | null }>) {
      if (w.key) keyBySession.set(w.sid, w.key);
    }
  }
  const { ctx, store, described, now } = run;
  ctx.db.transaction(() => {
    for (const e of byKey.values()) {
      const row = sessionRowFor(ctx.db, e, e.sessionId, e.startedAt ?? e.updatedAt ?? now, now);
      store.upsertSession(row);
      described.add(row.id);
    }
  }).immediate();
  run.report.report.linesUnderstood += byKey.size;
  return { byKey, keyOf: (sid) => keyBySession.get(sid) };
}

function coldArchiveOf(conn: Conn, shape: Shape, sid: string): ColdArchive | undefined {
  if (!shape.cold) return undefined;
  const row = conn
    .prepare('SELECT archive_name AS archiveName, last_seq AS lastSeq, storage, archive_blob AS blob FROM session_transcript_cold_archives WHERE session_id = ?')
    .get(sid) as ColdArchive | undefined;
  return row ?? undefined;
}

/** A cold archive's entries: sessions/cold/<name> beside the agent dir, or the row's blob (backups). */
function coldEvents(run: TranscriptRun, dbFile: string, cold: ColdArchive): SourceEvent[] {
  const agentDir = path.dirname(dbFile);
  const file = path.basename(agentDir) === 'agent' ? path.join(path.dirname(agentDir), 'sessions', 'cold', cold.archiveName) : path.join(agentDir, 'cold', cold.archiveName);
  let bytes: Uint8Array;
  if (cold.storage === 'sqlite' && cold.blob) bytes = cold.blob;
  else if (fs.existsSync(file) && fs.statSync(file).size <= MAX_COLD_BYTES) bytes = fs.readFileSync(file);
  else {
    run.report.skip(file, 0, fs.existsSync(file) ? 'cold archive too large to read' : 'cold archive missing: its history could not be read');
    return [];
  }
  try {
    return jsonlEvents(zstdToText(bytes)).map((e) => ({ ...e, text: e.text && unwrapRow(e.text) }));
  } catch (e) {
    run.report.skip(file, 0, `not a readable zstd archive (${(e as Error).message.slice(0, 80)})`);
    return [];
  }
}

/** Archive lines are events; a line shaped as a stored row ({seq, event_json}) is unwrapped. */
function unwrapRow(text: string): string {
  if (!text.includes('"event_json"') && !text.includes('"event"')) return text;
  const p = parseJsonObject(text);
  if ('error' in p || typeof p.value.type === 'string') return text;
  if (typeof p.value.event_json === 'string') return p.value.event_json;
  return isObj(p.value.event) ? JSON.stringify(p.value.event) : text;
}

function* hotRows(conn: Conn, shape: Shape, sid: string, afterSeq: number, maxSeq: number, firstPosition: number): Generator<SourceEvent & { seq: number }> {
  const stmt = conn.prepare(
    `SELECT seq, event_json AS json, ${shape.zstd ? 'event_zstd' : 'NULL'} AS zstd, ${shape.createdAt ? 'created_at' : 'NULL'} AS at
     FROM transcript_events WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
  );
  let last = afterSeq;
  let position = firstPosition;
  for (;;) {
    // One short query per batch: no read transaction stays open while rows are handled.
    const rows = stmt.all(sid, last, maxSeq, BATCH_ROWS) as Array<{ seq: number; json: unknown; zstd: unknown; at: number | null }>;
    if (!rows.length) return;
    for (const r of rows) yield { seq: r.seq, position: position++, ...rowText(r.json, r.zstd), at: typeof r.at === 'number' ? r.at : undefined };
    last = rows[rows.length - 1].seq;
  }
}

function watermarkOf(conn: Conn, shape: Shape, sid: string): string | null {
  if (!shape.watermarks) return null;
  const g = conn.prepare('SELECT generation FROM transcript_rewrite_watermarks WHERE session_id = ?').pluck().get(sid);
  return g === undefined || g === null ? null : String(g);
}

/** Imports what is new in one session window; returns how many entries it read. */
async function importWindow(run: TranscriptRun, conn: Conn, shape: Shape, dbFile: string, sid: string, maxSeq: number, sessions: ReturnType<typeof describeSessions>): Promise<number> {
  const { ctx, report } = run;
  const scope = `openclaw-db:${dbFile}:${sid}`;
  const saved = loadState<WindowCursor>(ctx.db, scope);
  const generation = watermarkOf(conn, shape, sid);
  const cold = coldArchiveOf(conn, shape, sid);
  const coldIsNew = Boolean(cold && cold.archiveName !== saved?.cold && cold.lastSeq > (saved?.lastSeq ?? -Infinity));
  const rewritten = Boolean(saved && (saved.generation !== generation || Math.max(maxSeq, cold?.lastSeq ?? -1) < saved.lastSeq));
  if (saved && !rewritten && !coldIsNew && maxSeq <= saved.lastSeq) return 0;
  if (rewritten) report.note(`Session ${sid} was rewritten in ${path.basename(dbFile)}; it was read again from the start.`);
  const key = sessions.keyOf(sid);
  const target = { entry: key ? sessions.byKey.get(key) : undefined, transcriptKey: sid, sourceName: `${path.basename(dbFile)}#${sid}` };

  let fresh = !saved || rewritten || coldIsNew;
  let cursor: WindowCursor = fresh ? { lastSeq: -1, position: 0, generation, cold: null, state: newTranscriptState() } : saved!;
  let coldList = fresh && cold ? coldEvents(run, dbFile, cold) : [];
  const hotFrom = () => (fresh && cold ? Math.max(cold.lastSeq, -1) : cursor.lastSeq);
  // Lazily: a window can hold millions of rows, only the branch table is kept.
  const entries = function* () {
    yield* coldList;
    yield* hotRows(conn, shape, sid, hotFrom(), maxSeq, cursor.position + coldList.length + 1);
  };
  let branch = await scanBranch(entries(), cursor.position + 1, fresh ? null : cursor.state.tip);
  if (branch === 'rescan') {
    report.note(`Session ${sid} continued on another branch; it was read again from the start.`);
    fresh = true;
    cursor = { lastSeq: -1, position: 0, generation, cold: null, state: newTranscriptState() };
    coldList = cold ? coldEvents(run, dbFile, cold) : [];
    branch = (await scanBranch(entries(), 1, null)) as Branch;
  }
  const reader = new TranscriptReader(run, target, cursor.state, branch);
  const source = path.join(dbFile, sid);
  let read = 0;
  const commit = (lastSeq: number, position: number, coldName = cold?.archiveName ?? cursor.cold) => () => {
    cursor = { lastSeq, position, generation, cold: coldName, state: reader.state };
    saveState(ctx.db, scope, cursor, nowOf(ctx));
  };
  // A cold archive commits in batches too; until its last batch the cursor does not name it, so a run
  // stopped halfway reads the window again from the start (ids keep that from duplicating turns).
  for (let i = 0; i < coldList.length; i += BATCH_ROWS) {
    const part = coldList.slice(i, i + BATCH_ROWS);
    const done = i + BATCH_ROWS >= coldList.length;
    applyEvents(run, reader, source, part, done ? commit(cold!.lastSeq, coldList.length) : commit(-1, i + part.length, null));
    read += part.length;
    await yieldToEventLoop();
  }
  let batch: Array<SourceEvent & { seq: number }> = [];
  const flush = () => {
    if (!batch.length) return;
    const last = batch[batch.length - 1];
    applyEvents(run, reader, source, batch, commit(last.seq, last.position));
    read += batch.length;
    batch = [];
  };
  for (const row of hotRows(conn, shape, sid, hotFrom(), maxSeq, cursor.position + 1)) {
    if (ctx.signal?.aborted) break;
    batch.push(row);
    if (batch.length >= BATCH_ROWS) {
      flush();
      await yieldToEventLoop();
    }
  }
  flush();
  if (reader.state.open) report.note(`Session ${sid}: the last turn has no reply yet; it is kept for the next import.`);
  return read;
}
