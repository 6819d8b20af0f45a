// Current OpenClaw keeps sessions in a per-agent SQLite database (agents/<id>/agent/openclaw-agent.sqlite):
// session_nodes (session key -> SessionEntry JSON), session_windows (each session id of a key),
// transcript_events (one entry per row, event_json TEXT or event_zstd BLOB) and
// session_transcript_cold_archives (a window's history moved to sessions/cold/<sha256>.jsonl.zst).
// The gateway owns that file and may be writing it: it is opened read-only, never checkpointed,
// read in short queries (no long read transaction), and a busy database ends the run politely.
import fs from 'node:fs';
import path from 'node:path';
import {
  agentStoreShape,
  findColdArchive,
  findRewriteGeneration,
  listColdArchiveSessions,
  listEventWindows,
  listSessionNodes,
  listSessionWindows,
  listTranscriptEvents,
  openAgentStore,
  type AgentStore,
  type AgentStoreShape,
  type ColdArchiveRow,
} from '../db/repositories/openclawAgent';
import { nowOf } from '../context';
import type { Branch } from './branch';
import { loadState, saveState } from './cursors';
import { isObj } from './fields';
import { parseJsonObject } from './lines';
import { applyEvents, jsonlEvents, rowText, zstdToText, type SourceEvent } from './openclawEvents';
import { sessionEntryFrom, sessionRowFor, type OpenClawSessionEntry } from './openclawSessions';
import {
  newTranscriptState,
  scanBranch,
  TranscriptReader,
  yieldToEventLoop,
  type TranscriptRun,
  type TranscriptState,
} from './openclawTranscript';

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

const isBusy = (e: unknown) => /^SQLITE_(BUSY|LOCKED)/.test(String((e as { code?: unknown }).code ?? ''));

export async function importAgentDatabase(run: TranscriptRun, dbFile: string): Promise<void> {
  const { report } = run;
  const fileReport = { path: dbFile, fromOffset: 0, bytesRead: 0, linesRead: 0, restarted: false };
  report.report.files.push(fileReport);
  let conn: AgentStore | undefined;
  try {
    conn = openAgentStore(dbFile, BUSY_TIMEOUT_MS);
    const shape = agentStoreShape(conn);
    if (!shape) {
      report.note(`${path.basename(dbFile)} holds no session tables (an agent store from before sessions moved into SQLite).`);
      return;
    }
    const entries = describeSessions(run, conn, shape);
    const windows = listEventWindows(conn);
    const known = new Set(windows.map((w) => w.id));
    if (shape.cold) {
      for (const id of listColdArchiveSessions(conn)) {
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
function describeSessions(
  run: TranscriptRun,
  conn: AgentStore,
  shape: AgentStoreShape,
): { byKey: Map<string, OpenClawSessionEntry>; keyOf: (sessionId: string) => string | undefined } {
  const byKey = new Map<string, OpenClawSessionEntry>();
  const keyBySession = new Map<string, string>();
  if (shape.nodes) {
    for (const n of listSessionNodes(conn)) {
      const parsed = n.json ? parseJsonObject(n.json) : { value: {} };
      const value = 'error' in parsed ? {} : parsed.value;
      const sid = typeof value.sessionId === 'string' && value.sessionId ? value.sessionId : n.sid;
      byKey.set(n.key, sessionEntryFrom(n.key, value, sid));
      if (n.sid) keyBySession.set(n.sid, n.key);
    }
  }
  if (shape.windows) {
    for (const w of listSessionWindows(conn)) {
      if (w.key) keyBySession.set(w.sid, w.key);
    }
  }
  const { ctx, store, described, now } = run;
  ctx.db
    .transaction(() => {
      for (const e of byKey.values()) {
        const row = sessionRowFor(ctx.db, e, e.sessionId, e.startedAt ?? e.updatedAt ?? now, now);
        store.upsertSession(row);
        described.add(row.id);
      }
    })
    .immediate();
  run.report.report.linesUnderstood += byKey.size;
  return { byKey, keyOf: (sid) => keyBySession.get(sid) };
}

function coldArchiveOf(conn: AgentStore, shape: AgentStoreShape, sid: string): ColdArchiveRow | undefined {
  if (!shape.cold) return undefined;
  return findColdArchive(conn, sid);
}

/** A cold archive's entries: sessions/cold/<name> beside the agent dir, or the row's blob (backups). */
function coldEvents(run: TranscriptRun, dbFile: string, cold: ColdArchiveRow): SourceEvent[] {
  const agentDir = path.dirname(dbFile);
  const file =
    path.basename(agentDir) === 'agent'
      ? path.join(path.dirname(agentDir), 'sessions', 'cold', cold.archiveName)
      : path.join(agentDir, 'cold', cold.archiveName);
  let bytes: Uint8Array;
  if (cold.storage === 'sqlite' && cold.blob) bytes = cold.blob;
  else if (fs.existsSync(file) && fs.statSync(file).size <= MAX_COLD_BYTES) bytes = fs.readFileSync(file);
  else {
    run.report.skip(
      file,
      0,
      fs.existsSync(file) ? 'cold archive too large to read' : 'cold archive missing: its history could not be read',
    );
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

function* hotRows(
  conn: AgentStore,
  shape: AgentStoreShape,
  sid: string,
  afterSeq: number,
  maxSeq: number,
  firstPosition: number,
): Generator<SourceEvent & { seq: number }> {
  let last = afterSeq;
  let position = firstPosition;
  for (;;) {
    // One short query per batch: no read transaction stays open while rows are handled.
    const rows = listTranscriptEvents(conn, shape, sid, last, maxSeq, BATCH_ROWS);
    if (!rows.length) return;
    for (const r of rows)
      yield { seq: r.seq, position: position++, ...rowText(r.json, r.zstd), at: typeof r.at === 'number' ? r.at : undefined };
    last = rows[rows.length - 1]!.seq; // not empty, checked above
  }
}

function watermarkOf(conn: AgentStore, shape: AgentStoreShape, sid: string): string | null {
  if (!shape.watermarks) return null;
  const g = findRewriteGeneration(conn, sid);
  return g === undefined || g === null ? null : String(g);
}

/** Imports what is new in one session window; returns how many entries it read. */
async function importWindow(
  run: TranscriptRun,
  conn: AgentStore,
  shape: AgentStoreShape,
  dbFile: string,
  sid: string,
  maxSeq: number,
  sessions: ReturnType<typeof describeSessions>,
): Promise<number> {
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
  const commit =
    (lastSeq: number, position: number, coldName = cold?.archiveName ?? cursor.cold) =>
    () => {
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
    const last = batch[batch.length - 1];
    if (!last) return;
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
