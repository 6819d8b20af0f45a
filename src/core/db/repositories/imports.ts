// What importers keep between runs (a cursor per source file, state per scope, one row per run, the
// aliases of foreign session keys), and their idempotent variants of the recorder's conversation rows:
// ids derived from the source with INSERT OR IGNORE, so a re-import adds nothing.
import type { DB } from '../connection';
import { stmt } from '../statements';
import type { RecorderSessionParams, TurnParams } from './recorder';

export interface StoredCursorRow {
  sourcePath: string;
  fileSize: number;
  fileInode: string | null;
  headHash: string | null;
  headLength: number;
  byteOffset: number;
  lineNumber: number;
  state: string | null;
}

export interface CursorParams {
  importer: string;
  file: string;
  size: number;
  inode: string;
  hash: string | null;
  headLength: number;
  offset: number;
  line: number;
  state: string | null;
  now: number;
}

export interface ImportRunParams {
  id: string;
  importer: string;
  source: string;
  startedAt: number;
  finishedAt: number;
  status: string;
  inserted: string;
  skippedCount: number;
  report: string;
}

export interface ImportedDecisionParams {
  id: string;
  turnId: string;
  sessionId: string;
  decision: string;
  reason: string;
  candidateFact: string | null;
  model: string;
  source: string;
  createdAt: number;
}

export interface ImportedAuditParams {
  id: string;
  decisionId: string;
  turnId: string | null;
  sessionId: string | null;
  targetFile: string;
  candidateFact: string | null;
  status: string;
  reason: string | null;
  model: string | null;
  metadata: string | null;
  createdAt: number;
}

export function findImportCursor(db: DB, importer: string, sourcePath: string): StoredCursorRow | undefined {
  return stmt<StoredCursorRow>(
    db,
    `SELECT source_path AS sourcePath, file_size AS fileSize, file_inode AS fileInode, head_hash AS headHash,
            head_length AS headLength, byte_offset AS byteOffset, line_number AS lineNumber, state
     FROM import_cursors WHERE importer = ? AND source_path = ?`,
  ).get(importer, sourcePath);
}

export function saveImportCursor(db: DB, p: CursorParams): void {
  stmt(
    db,
    `INSERT INTO import_cursors (importer, source_path, file_size, file_inode, head_hash, head_length, byte_offset, line_number, state, updated_at)
     VALUES (@importer, @file, @size, @inode, @hash, @headLength, @offset, @line, @state, @now)
     ON CONFLICT(importer, source_path) DO UPDATE SET file_size = excluded.file_size, file_inode = excluded.file_inode,
       head_hash = excluded.head_hash, head_length = excluded.head_length, byte_offset = excluded.byte_offset,
       line_number = excluded.line_number, state = excluded.state, updated_at = excluded.updated_at`,
  ).run(p);
}

export function findImportState(db: DB, scope: string): string | undefined {
  return stmt(db, 'SELECT state FROM import_state WHERE scope = ?').pluck().get(scope) as string | undefined;
}

export function saveImportState(db: DB, scope: string, state: string, now: number): void {
  stmt(
    db,
    `INSERT INTO import_state (scope, state, updated_at) VALUES (?, ?, ?)
     ON CONFLICT(scope) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
  ).run(scope, state, now);
}

export function insertImportRun(db: DB, p: ImportRunParams): void {
  stmt(
    db,
    `INSERT INTO import_runs (id, importer, source, started_at, finished_at, status, inserted, skipped_count, report)
     VALUES (@id, @importer, @source, @startedAt, @finishedAt, @status, @inserted, @skippedCount, @report)`,
  ).run(p);
}

/** True when the alias is new. */
export function insertSessionAlias(db: DB, alias: string, sessionId: string, source: string, now: number): boolean {
  return (
    stmt(db, 'INSERT OR IGNORE INTO session_aliases (alias, session_id, source, created_at) VALUES (?, ?, ?, ?)').run(
      alias,
      sessionId,
      source,
      now,
    ).changes > 0
  );
}

export function findSessionForAlias(db: DB, alias: string): string | undefined {
  return stmt(db, 'SELECT session_id FROM session_aliases WHERE alias = ?').pluck().get(alias) as string | undefined;
}

/**
 * What the workbench already knows of a session wins over an import (the plugin recorded it first);
 * an import fills gaps, widens the time span and merges metadata.
 */
export function upsertImportedSession(db: DB, p: RecorderSessionParams): void {
  stmt(
    db,
    `
    INSERT INTO sessions (id, channel_id, conversation_target, account_id, created_at, last_activity_at, metadata)
    VALUES (@id, @channelId, @conversationTarget, @accountId, @createdAt, @lastActivityAt, @metadata)
    ON CONFLICT(id) DO UPDATE SET
      conversation_target = coalesce(conversation_target, excluded.conversation_target),
      account_id = coalesce(account_id, excluded.account_id),
      created_at = min(created_at, excluded.created_at),
      last_activity_at = max(last_activity_at, excluded.last_activity_at, min(created_at, excluded.created_at)),
      metadata = CASE WHEN excluded.metadata IS NULL THEN metadata
                      WHEN metadata IS NULL THEN excluded.metadata
                      ELSE json_patch(metadata, excluded.metadata) END`,
  ).run(p);
}

/** An imported turn may be older than the session's first one: both ends of the span move. */
export function widenSessionSpan(db: DB, sessionId: string, at: number): void {
  stmt(db, 'UPDATE sessions SET last_activity_at = max(last_activity_at, ?), created_at = min(created_at, ?) WHERE id = ?').run(
    at,
    at,
    sessionId,
  );
}

const TURN_COLUMNS = `id, session_id, turn_number, user_message_id, user_message_content, user_from, user_metadata,
  agent_message_id, agent_message_content, agent_metadata, created_at`;
const TURN_ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
/** Staged rows per statement: 50 rows of 11 values stay far below SQLite's 32,766 parameters. */
const STAGED_PER_INSERT = 50;

function pushTurnParams(params: unknown[], r: TurnParams): void {
  params.push(r.id, r.sessionId, r.turnNumber, r.userMessageId, r.userContent, r.userFrom, r.userMetadata);
  params.push(r.agentMessageId, r.agentContent, r.agentMetadata, r.createdAt);
}

/**
 * Stages turns for insertStagedTurns, in order, in a temporary table: the connection's own, which no other
 * connection sees. It has no constraint, so filling it opens no statement journal (insertStagedTurns says why
 * that matters).
 */
export function stageTurnRows(db: DB, rows: readonly TurnParams[]): void {
  if (!rows.length) return;
  stmt(db, `CREATE TEMP TABLE IF NOT EXISTS import_turn_stage (${TURN_COLUMNS})`).run();
  const stage = (n: number) => stmt(db, `INSERT INTO temp.import_turn_stage VALUES ${Array(n).fill(TURN_ROW).join(', ')}`);
  for (let i = 0; i < rows.length; i += STAGED_PER_INSERT) {
    const end = Math.min(i + STAGED_PER_INSERT, rows.length);
    const params: unknown[] = [];
    for (let j = i; j < end; j++) pushTurnParams(params, rows[j]!);
    stage(end - i).run(params);
  }
}

/**
 * Inserts the staged turns in the order they were staged (their seq follows it), in one statement, and
 * empties the stage. The trigram index's trigger runs per row either way, but FTS5 writes its pending terms
 * out as a new segment at every statement that opens a statement journal, as an INSERT into
 * conversation_turns does (its constraints and triggers), and merges segments as they pile up: one
 * statement for a batch's turns writes their terms once instead of once per fifty turns (0.60 → 0.46 s of
 * CPU for the 5,270 turns of the import bench's 20 MB transcript, load 6). The rows are the same. Returns how
 * many turns it inserted.
 */
export function insertStagedTurns(db: DB): number {
  try {
    return stmt(
      db,
      `INSERT INTO conversation_turns (${TURN_COLUMNS}) SELECT ${TURN_COLUMNS} FROM temp.import_turn_stage ORDER BY rowid`,
    ).run().changes;
  } finally {
    stmt(db, 'DELETE FROM temp.import_turn_stage').run();
  }
}

/** A turn of the same exchange in another source: same session, same user text, the reply inside its reply, close in time. */
export function findSameExchangeTurn(
  db: DB,
  sessionId: string,
  from: number,
  to: number,
  notId: string,
  userContent: string,
  agentContent: string,
): string | undefined {
  return stmt(
    db,
    `SELECT id FROM conversation_turns WHERE session_id = ? AND created_at BETWEEN ? AND ? AND id <> ?
       AND user_message_content = ? AND instr(agent_message_content, ?) > 0 LIMIT 1`,
  )
    .pluck()
    .get(sessionId, from, to, notId, userContent, agentContent) as string | undefined;
}

/** A turn of the session with this user text, close in time (OpenClaw's replies to one message). */
export function findTurnOfUserMessage(db: DB, sessionId: string, from: number, to: number, userContent: string): string | undefined {
  return stmt(
    db,
    'SELECT id FROM conversation_turns WHERE session_id = ? AND created_at BETWEEN ? AND ? AND user_message_content = ? LIMIT 1',
  )
    .pluck()
    .get(sessionId, from, to, userContent) as string | undefined;
}

export function insertDecisionIfNew(db: DB, p: ImportedDecisionParams): number {
  return stmt(
    db,
    `
    INSERT OR IGNORE INTO memory_gate_decisions (id, turn_id, session_id, decision, reason, candidate_fact, llm_model,
      llm_latency_ms, prompt_tokens, completion_tokens, raw_response, source, created_at)
    VALUES (@id, @turnId, @sessionId, @decision, @reason, @candidateFact, @model, NULL, NULL, NULL, NULL, @source, @createdAt)`,
  ).run(p).changes;
}

export function insertPluginAuditIfNew(db: DB, p: ImportedAuditParams): number {
  return stmt(
    db,
    `
    INSERT OR IGNORE INTO write_guardian_audit (id, decision_id, turn_id, session_id, target_file, candidate_fact,
      before_snapshot_id, after_snapshot_id, diff, lines_added, lines_removed, lines_modified, status, reason,
      llm_model, llm_latency_ms, agent_steps, source, related_audit_id, metadata, created_at)
    VALUES (@id, @decisionId, @turnId, @sessionId, @targetFile, @candidateFact, NULL, NULL, NULL, NULL, NULL, NULL,
      @status, @reason, @model, NULL, NULL, 'plugin', NULL, @metadata, @createdAt)`,
  ).run(p).changes;
}

/** The gate's log line carries no fact; the guardian's line that follows does. */
export function fillDecisionFact(db: DB, decisionId: string, fact: string): void {
  stmt(db, 'UPDATE memory_gate_decisions SET candidate_fact = ? WHERE id = ? AND candidate_fact IS NULL').run(fact, decisionId);
}
