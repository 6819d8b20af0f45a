// The memory-management plugin's fact store as imported (managed_facts, managed_fact_events), the joins
// of a fact to the plugin write that established it, and the audits that re-render the managed region.
import type { DB } from '../connection';
import { stmt } from '../statements';

export interface ManagedFactParams {
  id: string;
  file: string;
  text: string;
  status: string;
  createdAt: number;
  updatedAt: number;
  sessionKey: string | null;
  sourceMessageId: string | null;
  decision: string | null;
  reason: string | null;
  recordedAt: number | null;
  now: number;
}

export interface UnjoinedFactRow {
  id: string;
  file: string;
  text: string;
  sessionKey: string | null;
  messageId: string | null;
  at: number | null;
}

export interface WrittenAuditRow {
  id: string;
  turnId: string | null;
  fact: string | null;
  sessionId: string | null;
}

export interface ExternalRenderRow {
  id: string;
  file: string;
  at: number;
  before: string;
  after: string;
}

export interface OpenPluginWriteRow {
  id: string;
  file: string;
  fact: string;
  at: number;
}

/** Returns 1 when the fact is new or changed. */
export function upsertManagedFact(db: DB, p: ManagedFactParams): number {
  return stmt(
    db,
    `
    INSERT INTO managed_facts (id, file_name, text, status, created_at, updated_at, session_key, source_message_id, decision, reason, recorded_at, imported_at)
    VALUES (@id, @file, @text, @status, @createdAt, @updatedAt, @sessionKey, @sourceMessageId, @decision, @reason, @recordedAt, @now)
    ON CONFLICT (id) DO UPDATE SET file_name = excluded.file_name, text = excluded.text, status = excluded.status,
      updated_at = excluded.updated_at, imported_at = excluded.imported_at
    WHERE managed_facts.updated_at <> excluded.updated_at OR managed_facts.status <> excluded.status`,
  ).run(p).changes;
}

export function insertManagedFactEventIfNew(
  db: DB,
  e: { id: string; factId: string; type: string; file: string | null; text: string | null; proposalId: string | null; at: number },
): number {
  return stmt(
    db,
    'INSERT OR IGNORE INTO managed_fact_events (id, fact_id, type, file_name, text, proposal_id, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ).run(e.id, e.factId, e.type, e.file, e.text, e.proposalId, e.at).changes;
}

export function listUnjoinedManagedFacts(db: DB): UnjoinedFactRow[] {
  return stmt<UnjoinedFactRow>(
    db,
    `SELECT id, file_name AS file, text, session_key AS sessionKey, source_message_id AS messageId, recorded_at AS at
    FROM managed_facts WHERE audit_id IS NULL AND turn_id IS NULL`,
  ).all();
}

/** Plugin writes of a file in a time window, newest first. */
export function listPluginWritesOfFile(db: DB, file: string, from: number, to: number): WrittenAuditRow[] {
  return stmt<WrittenAuditRow>(
    db,
    `SELECT id, turn_id AS turnId, candidate_fact AS fact, session_id AS sessionId FROM write_guardian_audit
    WHERE source = 'plugin' AND status = 'written' AND target_file = ? AND created_at BETWEEN ? AND ? ORDER BY created_at DESC`,
  ).all(file, from, to);
}

export function findLatestPluginWriteOfFile(db: DB, file: string, from: number, to: number): string | undefined {
  return stmt(
    db,
    `SELECT id FROM write_guardian_audit WHERE source = 'plugin' AND status = 'written' AND target_file = ? AND created_at BETWEEN ? AND ?
    ORDER BY created_at DESC LIMIT 1`,
  )
    .pluck()
    .get(file, from, to) as string | undefined;
}

export function findTurnOfMessage(db: DB, sessionId: string, messageId: string): string | undefined {
  return stmt(db, 'SELECT id FROM conversation_turns WHERE session_id = ? AND user_message_id = ? ORDER BY created_at DESC LIMIT 1')
    .pluck()
    .get(sessionId, messageId) as string | undefined;
}

export function joinManagedFact(db: DB, factId: string, auditId: string | null, turnId: string | null): void {
  stmt(db, 'UPDATE managed_facts SET audit_id = ?, turn_id = ? WHERE id = ?').run(auditId, turnId, factId);
}

/** External changes no one explained whose new content holds a managed region. */
export function listUnexplainedManagedChanges(db: DB): ExternalRenderRow[] {
  return stmt<ExternalRenderRow>(
    db,
    `SELECT a.id, a.target_file AS file, a.created_at AS at, b.content AS before, c.content AS after FROM write_guardian_audit a
      JOIN file_snapshots b ON b.id = a.before_snapshot_id JOIN file_snapshots c ON c.id = a.after_snapshot_id
      WHERE a.source = 'external' AND json_extract(coalesce(a.metadata, '{}'), '$.origin') IS NULL
        AND (c.content LIKE '%<!-- reflection:managed:start -->%')`,
  ).all();
}

export function relabelAsManagedRender(db: DB, auditId: string, writeAuditId: string): void {
  stmt(
    db,
    `UPDATE write_guardian_audit SET reason = 'the plugin re-rendered the managed region after its write',
      metadata = json_patch(coalesce(metadata, '{}'), json_object('origin', 'managed_region', 'writeAuditId', ?)) WHERE id = ?`,
  ).run(writeAuditId, auditId);
}

/** Plugin writes with a fact whose own file change was never attached. */
export function listPluginWritesWithoutChange(db: DB): OpenPluginWriteRow[] {
  return stmt<OpenPluginWriteRow>(
    db,
    `SELECT id, target_file AS file, candidate_fact AS fact, created_at AS at FROM write_guardian_audit
      WHERE source = 'plugin' AND status = 'written' AND before_snapshot_id IS NULL AND after_snapshot_id IS NULL AND diff IS NULL
        AND candidate_fact IS NOT NULL AND json_extract(coalesce(metadata, '{}'), '$.liveCapture') IS NULL`,
  ).all();
}

/** The first plain external change of a file in (after, until]. */
export function findFirstExternalChangeAfter(
  db: DB,
  file: string,
  after: number,
  until: number,
): { id: string; at: number; after: string } | undefined {
  return stmt<{ id: string; at: number; after: string }>(
    db,
    `SELECT e.id, e.created_at AS at, s.content AS after FROM write_guardian_audit e
      JOIN file_snapshots s ON s.id = e.after_snapshot_id
      WHERE e.source = 'external' AND e.status = 'written' AND e.target_file = ? AND e.created_at > ? AND e.created_at <= ?
        AND e.metadata IS NULL ORDER BY e.created_at LIMIT 1`,
  ).get(file, after, until);
}

export function externalChangeBetween(db: DB, file: string, from: number, to: number): boolean {
  return (
    stmt(
      db,
      `SELECT 1 FROM write_guardian_audit WHERE source = 'external' AND status = 'written' AND target_file = ?
      AND created_at BETWEEN ? AND ? AND metadata IS NULL LIMIT 1`,
    )
      .pluck()
      .get(file, from, to) !== undefined
  );
}

export function pluginWriteBetween(db: DB, file: string, after: number, before: number): boolean {
  return (
    stmt(
      db,
      `SELECT 1 FROM write_guardian_audit WHERE source = 'plugin' AND status = 'written' AND target_file = ? AND created_at > ? AND created_at < ? LIMIT 1`,
    )
      .pluck()
      .get(file, after, before) !== undefined
  );
}

/** Moves an external change's content onto the plugin write it belongs to; 1 when moved. */
export function moveChangeOntoWrite(db: DB, p: { from: string; to: string; changedAt: number }): number {
  return stmt(
    db,
    `UPDATE write_guardian_audit SET
      (before_snapshot_id, after_snapshot_id, diff, lines_added, lines_removed, lines_modified) =
      (SELECT before_snapshot_id, after_snapshot_id, diff, lines_added, lines_removed, lines_modified FROM write_guardian_audit WHERE id = @from),
      metadata = json_set(coalesce(metadata, '{}'), '$.liveCapture', json_object('changedAt', @changedAt, 'provisionalAuditId', @from, 'withManagedRender', json('true')))
    WHERE id = @to AND before_snapshot_id IS NULL AND after_snapshot_id IS NULL AND diff IS NULL`,
  ).run(p).changes;
}

export function moveFileStateAudit(db: DB, from: string, to: string): void {
  stmt(db, 'UPDATE file_state SET audit_id = @to WHERE audit_id = @from').run({ from, to });
}

export function deleteExternalAudit(db: DB, id: string): void {
  stmt(db, "DELETE FROM write_guardian_audit WHERE id = ? AND source = 'external'").run(id);
}
