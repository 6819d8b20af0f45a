// Conversation archives: the turns they read (keyset pages that skip opted-out sessions), each turn's
// decisions and writes, and the record of every archive file written (conversation_archives).
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface ArchiveTurnRow {
  seq: number;
  id: string;
  session_id: string;
  turn_number: number;
  user_message_id: string | null;
  user_message_content: string;
  user_from: string | null;
  agent_message_id: string | null;
  agent_message_content: string;
  created_at: number;
  channel_id: string;
  conversation_target: string | null;
  account_id: string | null;
}

const TURN_COLUMNS = `t.seq, t.id, t.session_id, t.turn_number, t.user_message_id, t.user_message_content, t.user_from,
  t.agent_message_id, t.agent_message_content, t.created_at, s.channel_id, s.conversation_target, s.account_id`;

/** Non-excluded turns created before `until`, after the keyset position (created_at, seq), oldest first. */
export function listArchiveTurnsPage(db: DB, page: { until: number; at: number; seq: number; limit: number }): ArchiveTurnRow[] {
  return stmt<ArchiveTurnRow>(
    db,
    `SELECT ${TURN_COLUMNS} FROM conversation_turns t JOIN sessions s ON s.id = t.session_id
      WHERE t.created_at < @until AND t.session_id NOT IN (SELECT session_id FROM excluded_sessions)
        AND (t.created_at > @at OR (t.created_at = @at AND t.seq > @seq))
      ORDER BY t.created_at, t.seq LIMIT @limit`,
  ).all(page);
}

/** Turns recorded after `afterSeq` in insertion order, each saying whether its session is excluded. */
export function listTurnsAfterSeq(db: DB, afterSeq: number, limit: number): Array<ArchiveTurnRow & { excluded: number }> {
  return stmt<ArchiveTurnRow & { excluded: number }>(
    db,
    `SELECT ${TURN_COLUMNS}, (t.session_id IN (SELECT session_id FROM excluded_sessions)) AS excluded
      FROM conversation_turns t JOIN sessions s ON s.id = t.session_id WHERE t.seq > ? ORDER BY t.seq LIMIT ?`,
  ).all(afterSeq, limit);
}

export function listDecisionsOfTurn(db: DB, turnId: string): Record<string, unknown>[] {
  return stmt<Record<string, unknown>>(
    db,
    `SELECT id, decision, reason, candidate_fact AS candidateFact, llm_model AS llmModel,
      llm_latency_ms AS latencyMs, prompt_tokens AS promptTokens, completion_tokens AS completionTokens, source, created_at AS createdAt
      FROM memory_gate_decisions WHERE turn_id = ? ORDER BY created_at, seq`,
  ).all(turnId);
}

export function listWritesOfTurn(db: DB, turnId: string): Record<string, unknown>[] {
  return stmt<Record<string, unknown>>(
    db,
    `SELECT id, decision_id AS decisionId, target_file AS targetFile, status, candidate_fact AS candidateFact,
      reason, diff, lines_added AS linesAdded, lines_removed AS linesRemoved, lines_modified AS linesModified, source,
      created_at AS createdAt FROM write_guardian_audit WHERE turn_id = ? ORDER BY created_at, id`,
  ).all(turnId);
}

export interface ArchiveRecord {
  id: string;
  fileName: string;
  kind: 'on_demand' | 'scheduled';
  since: number | null;
  until: number | null;
  turns: number;
  bytes: number;
  createdAt: number;
}

export function insertArchiveRecord(db: DB, a: ArchiveRecord): void {
  stmt(
    db,
    'INSERT INTO conversation_archives (id, file_name, kind, since, until, turns, bytes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(a.id, a.fileName, a.kind, a.since, a.until, a.turns, a.bytes, a.createdAt);
}

/** File names (absolute, or relative to the exports folder) of every recorded archive. */
export function listArchiveFileNames(db: DB): string[] {
  return stmt(db, 'SELECT file_name FROM conversation_archives').pluck().all() as string[];
}

export function findLatestArchive(db: DB): { file: string; until: number | null } | undefined {
  return stmt<{ file: string; until: number | null }>(
    db,
    'SELECT file_name AS file, until FROM conversation_archives ORDER BY until DESC LIMIT 1',
  ).get();
}
