// Reads of current OpenClaw's per-agent SQLite store (agents/<id>/agent/openclaw-agent.sqlite), which
// the OpenClaw importer walks: session_nodes (session key -> SessionEntry JSON), session_windows (each
// session id of a key), transcript_events (one entry per row, event_json TEXT or event_zstd BLOB) and
// session_transcript_cold_archives. The gateway owns that file and may be writing it: it is opened
// read-only, never checkpointed, and read in short queries (no long read transaction).
import Database from 'better-sqlite3';
import { nativeBindingOption } from '../connection';
import { stmt } from '../statements';

export type AgentStore = Database.Database;

/** Which of the tables and columns this store has: older schemas lack some, tests and tools build subsets. */
export interface AgentStoreShape {
  zstd: boolean;
  createdAt: boolean;
  windows: boolean;
  nodes: boolean;
  cold: boolean;
  watermarks: boolean;
}

export interface ColdArchiveRow {
  archiveName: string;
  lastSeq: number;
  storage: string;
  blob: Uint8Array | null;
}

export interface TranscriptEventRow {
  seq: number;
  json: unknown;
  zstd: unknown;
  at: number | null;
}

/** Read-only; a query waits this long for the gateway's write lock before SQLITE_BUSY. */
export function openAgentStore(file: string, busyTimeoutMs: number): AgentStore {
  return new Database(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs, ...nativeBindingOption() });
}

function columnsOf(conn: AgentStore, table: string): Set<string> {
  return new Set(
    stmt<{ name: string }>(conn, `PRAGMA table_info(${JSON.stringify(table)})`)
      .all()
      .map((c) => c.name),
  );
}

/** Undefined when the store holds no transcript events (an agent store from before sessions moved into SQLite). */
export function agentStoreShape(conn: AgentStore): AgentStoreShape | undefined {
  const has = (table: string, ...cols: string[]) => {
    const c = columnsOf(conn, table);
    return cols.every((x) => c.has(x));
  };
  if (!has('transcript_events', 'session_id', 'seq', 'event_json')) return undefined;
  const events = columnsOf(conn, 'transcript_events');
  return {
    zstd: events.has('event_zstd'),
    createdAt: events.has('created_at'),
    windows: has('session_windows', 'session_id', 'session_key'),
    nodes: has('session_nodes', 'session_key', 'current_session_id', 'entry_json'),
    cold: has('session_transcript_cold_archives', 'session_id', 'archive_name', 'last_seq', 'storage', 'archive_blob'),
    watermarks: has('transcript_rewrite_watermarks', 'session_id', 'generation'),
  };
}

export function listEventWindows(conn: AgentStore): Array<{ id: string; maxSeq: number }> {
  return stmt<{ id: string; maxSeq: number }>(
    conn,
    'SELECT session_id AS id, max(seq) AS maxSeq FROM transcript_events GROUP BY session_id',
  ).all();
}

export function listColdArchiveSessions(conn: AgentStore): string[] {
  return stmt(conn, 'SELECT session_id FROM session_transcript_cold_archives').pluck().all() as string[];
}

export function listSessionNodes(conn: AgentStore): Array<{ key: string; sid: string; json: string | null }> {
  return stmt<{ key: string; sid: string; json: string | null }>(
    conn,
    'SELECT session_key AS key, current_session_id AS sid, entry_json AS json FROM session_nodes',
  ).all();
}

export function listSessionWindows(conn: AgentStore): Array<{ sid: string; key: string | null }> {
  return stmt<{ sid: string; key: string | null }>(conn, 'SELECT session_id AS sid, session_key AS key FROM session_windows').all();
}

export function findColdArchive(conn: AgentStore, sessionId: string): ColdArchiveRow | undefined {
  return stmt<ColdArchiveRow>(
    conn,
    'SELECT archive_name AS archiveName, last_seq AS lastSeq, storage, archive_blob AS blob FROM session_transcript_cold_archives WHERE session_id = ?',
  ).get(sessionId);
}

/** One batch of a window's events after a seq, up to maxSeq, in order. */
export function listTranscriptEvents(
  conn: AgentStore,
  shape: AgentStoreShape,
  sessionId: string,
  afterSeq: number,
  maxSeq: number,
  limit: number,
): TranscriptEventRow[] {
  return stmt<TranscriptEventRow>(
    conn,
    `SELECT seq, event_json AS json, ${shape.zstd ? 'event_zstd' : 'NULL'} AS zstd, ${shape.createdAt ? 'created_at' : 'NULL'} AS at
     FROM transcript_events WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
  ).all(sessionId, afterSeq, maxSeq, limit);
}

export function findRewriteGeneration(conn: AgentStore, sessionId: string): unknown {
  return stmt(conn, 'SELECT generation FROM transcript_rewrite_watermarks WHERE session_id = ?').pluck().get(sessionId);
}
