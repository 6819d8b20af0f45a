// Imports the memory-management plugin's fact store (facts, their provenance and lifecycle events),
// joins each fact to the plugin write that established it, and labels the file's re-render (the
// plugin rewrites the managed region right after a write, with no log line) as part of that write.
import fs from 'node:fs';
import path from 'node:path';
import { MEMORY_FILES } from '../../shared/domain';
import { writeTx, type DB } from '../db/connection';
import { parseRegion, storePath } from '../guardian/managed';

interface StoreFile {
  facts?: Array<{ id: string; fileName: string; text: string; status: string; createdAt: string; updatedAt: string; provenance?: { sessionKey?: string; sourceMessageId?: string; decision?: string; reason?: string; recordedAt?: string } }>;
  factEvents?: Array<{ id: string; factId: string; type: string; fileName?: string; text?: string; proposalId?: string; timestamp: string }>;
}

export interface ManagedImport {
  facts: number;
  events: number;
  joined: number;
  rendersClaimed: number;
  problem?: string;
}

const ms = (iso: string | undefined) => {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? t : null;
};
const normalize = (t: string) => t.trim().replace(/^-\s*/, '');
// The plugin records a fact after write_guardian's write and the reaction: seconds at most.
const JOIN_WINDOW_MS = 60_000;
const RENDER_WINDOW_MS = 10_000;
// Live capture's audit match window: a write's own change comes at most this long before its line.
const OWN_CHANGE_WINDOW_MS = 5000;

/** Reads the store (when the workspace has one) into managed_facts and managed_fact_events. */
export function importManagedStore(db: DB, workspaceDir: string, now: number): ManagedImport {
  const result: ManagedImport = { facts: 0, events: 0, joined: 0, rendersClaimed: 0 };
  let store: StoreFile;
  try {
    store = JSON.parse(fs.readFileSync(storePath(workspaceDir), 'utf8')) as StoreFile;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') result.problem = `${path.basename(storePath(workspaceDir))} could not be read: ${(e as Error).message}`;
    return result;
  }
  const upsertFact = db.prepare(`
    INSERT INTO managed_facts (id, file_name, text, status, created_at, updated_at, session_key, source_message_id, decision, reason, recorded_at, imported_at)
    VALUES (@id, @file, @text, @status, @createdAt, @updatedAt, @sessionKey, @sourceMessageId, @decision, @reason, @recordedAt, @now)
    ON CONFLICT (id) DO UPDATE SET file_name = excluded.file_name, text = excluded.text, status = excluded.status,
      updated_at = excluded.updated_at, imported_at = excluded.imported_at
    WHERE managed_facts.updated_at <> excluded.updated_at OR managed_facts.status <> excluded.status`);
  const insertEvent = db.prepare('INSERT OR IGNORE INTO managed_fact_events (id, fact_id, type, file_name, text, proposal_id, at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  writeTx(db, () => {
    for (const f of store.facts ?? []) {
      if (!(MEMORY_FILES as readonly string[]).includes(f.fileName) || (f.status !== 'active' && f.status !== 'deleted')) continue;
      const p = f.provenance ?? {};
      result.facts += upsertFact.run({
        id: f.id, file: f.fileName, text: f.text, status: f.status, createdAt: ms(f.createdAt) ?? now, updatedAt: ms(f.updatedAt) ?? now,
        sessionKey: p.sessionKey ?? null, sourceMessageId: p.sourceMessageId ?? null, decision: p.decision ?? null, reason: p.reason ?? null, recordedAt: ms(p.recordedAt), now,
      }).changes;
    }
    for (const e of store.factEvents ?? []) {
      result.events += insertEvent.run(e.id, e.factId, e.type, e.fileName ?? null, e.text ?? null, e.proposalId ?? null, ms(e.timestamp) ?? now).changes;
    }
    result.rendersClaimed = joinManagedRenders(db);
    result.joined = joinFacts(db);
  });
  return result;
}

/** Each fact not joined yet gets the plugin write of the same fact, file and session just before it was recorded. */
function joinFacts(db: DB): number {
  const open = db.prepare('SELECT id, file_name AS file, text, session_key AS sessionKey, source_message_id AS messageId, recorded_at AS at FROM managed_facts WHERE audit_id IS NULL AND turn_id IS NULL').all() as Array<{ id: string; file: string; text: string; sessionKey: string | null; messageId: string | null; at: number | null }>;
  const audits = db.prepare(`SELECT id, turn_id AS turnId, candidate_fact AS fact, session_id AS sessionId FROM write_guardian_audit
    WHERE source = 'plugin' AND status = 'written' AND target_file = ? AND created_at BETWEEN ? AND ? ORDER BY created_at DESC`);
  const turnByMessage = db.prepare('SELECT id FROM conversation_turns WHERE session_id = ? AND user_message_id = ? ORDER BY created_at DESC LIMIT 1').pluck();
  const save = db.prepare('UPDATE managed_facts SET audit_id = ?, turn_id = ? WHERE id = ?');
  let joined = 0;
  for (const f of open) {
    const candidates = f.at === null ? [] : (audits.all(f.file, f.at - JOIN_WINDOW_MS, f.at + 1000) as Array<{ id: string; turnId: string | null; fact: string | null; sessionId: string | null }>);
    const audit = candidates.find((a) => a.fact !== null && normalize(a.fact) === normalize(f.text) && (!f.sessionKey || !a.sessionId || a.sessionId === f.sessionKey));
    const turn = audit?.turnId ?? (f.sessionKey && f.messageId ? (turnByMessage.get(f.sessionKey, f.messageId) as string | undefined) : undefined);
    if (audit || turn) {
      save.run(audit?.id ?? null, turn ?? null, f.id);
      joined++;
    }
  }
  return joined;
}

/**
 * An external change that only rewrote the managed region, shortly after a plugin write of the same
 * file, is the plugin's re-render: it belongs to that write, not to someone outside.
 */
export function claimManagedRenders(db: DB): number {
  const rows = db
    .prepare(`SELECT a.id, a.target_file AS file, a.created_at AS at, b.content AS before, c.content AS after FROM write_guardian_audit a
      JOIN file_snapshots b ON b.id = a.before_snapshot_id JOIN file_snapshots c ON c.id = a.after_snapshot_id
      WHERE a.source = 'external' AND json_extract(coalesce(a.metadata, '{}'), '$.origin') IS NULL
        AND (c.content LIKE '%<!-- reflection:managed:start -->%')`)
    .all() as Array<{ id: string; file: string; at: number; before: string; after: string }>;
  const write = db.prepare(`SELECT id FROM write_guardian_audit WHERE source = 'plugin' AND status = 'written' AND target_file = ? AND created_at BETWEEN ? AND ? ORDER BY created_at DESC LIMIT 1`).pluck();
  const relabel = db.prepare(`UPDATE write_guardian_audit SET reason = 'the plugin re-rendered the managed region after its write',
      metadata = json_patch(coalesce(metadata, '{}'), json_object('origin', 'managed_region', 'writeAuditId', ?)) WHERE id = ?`);
  let claimed = 0;
  for (const r of rows) {
    const b = parseRegion(r.before);
    const a = parseRegion(r.after);
    const outside = (p: typeof a) => `${p.before.trimEnd()}\n${p.after}`;
    // Only the region changed (or was added after the free text).
    if (outside(b).trimEnd() !== outside(a).trimEnd()) continue;
    const writeId = write.get(r.file, r.at - RENDER_WINDOW_MS, r.at + 1000) as string | undefined;
    if (!writeId) continue;
    relabel.run(writeId, r.id);
    claimed++;
  }
  return claimed;
}

/**
 * A plugin write whose own change was never seen alone: the plugin re-rendered the managed region
 * (with the new fact) right after writing, so the file settled with both, after the audit line. The
 * first change of that file within seconds after the write, whose region holds the write's fact,
 * is the write as the agent sees it: its content moves onto the plugin's audit.
 */
export function attachManagedWrites(db: DB): number {
  const open = db
    .prepare(`SELECT id, target_file AS file, candidate_fact AS fact, created_at AS at FROM write_guardian_audit
      WHERE source = 'plugin' AND status = 'written' AND before_snapshot_id IS NULL AND after_snapshot_id IS NULL AND diff IS NULL
        AND candidate_fact IS NOT NULL AND json_extract(coalesce(metadata, '{}'), '$.liveCapture') IS NULL`)
    .all() as Array<{ id: string; file: string; fact: string; at: number }>;
  if (!open.length) return 0;
  const change = db.prepare(`SELECT e.id, e.created_at AS at, s.content AS after FROM write_guardian_audit e JOIN file_snapshots s ON s.id = e.after_snapshot_id
      WHERE e.source = 'external' AND e.status = 'written' AND e.target_file = ? AND e.created_at > ? AND e.created_at <= ?
        AND e.metadata IS NULL ORDER BY e.created_at LIMIT 1`);
  // A change seen just before the audit line is the write itself: the regular attacher takes it.
  const ownChange = db.prepare(`SELECT 1 FROM write_guardian_audit WHERE source = 'external' AND status = 'written' AND target_file = ?
      AND created_at BETWEEN ? AND ? AND metadata IS NULL LIMIT 1`).pluck();
  const laterWrite = db.prepare(`SELECT 1 FROM write_guardian_audit WHERE source = 'plugin' AND status = 'written' AND target_file = ? AND created_at > ? AND created_at < ? LIMIT 1`).pluck();
  const move = db.prepare(`UPDATE write_guardian_audit SET
      (before_snapshot_id, after_snapshot_id, diff, lines_added, lines_removed, lines_modified) =
      (SELECT before_snapshot_id, after_snapshot_id, diff, lines_added, lines_removed, lines_modified FROM write_guardian_audit WHERE id = @from),
      metadata = json_set(coalesce(metadata, '{}'), '$.liveCapture', json_object('changedAt', @changedAt, 'provisionalAuditId', @from, 'withManagedRender', json('true')))
    WHERE id = @to AND before_snapshot_id IS NULL AND after_snapshot_id IS NULL AND diff IS NULL`);
  const moveState = db.prepare('UPDATE file_state SET audit_id = @to WHERE audit_id = @from');
  const drop = db.prepare("DELETE FROM write_guardian_audit WHERE id = ? AND source = 'external'");
  let attached = 0;
  for (const w of open) {
    const c = change.get(w.file, w.at, w.at + RENDER_WINDOW_MS) as { id: string; at: number; after: string } | undefined;
    if (!c || laterWrite.get(w.file, w.at, c.at) || ownChange.get(w.file, w.at - OWN_CHANGE_WINDOW_MS, w.at)) continue;
    const region = parseRegion(c.after);
    if (!region.has || !region.body.split('\n').some((l) => normalize(l) === normalize(w.fact))) continue;
    if (move.run({ from: c.id, to: w.id, changedAt: c.at }).changes) {
      moveState.run({ from: c.id, to: w.id });
      drop.run(c.id);
      attached++;
    }
  }
  return attached;
}

/** Both joins of the re-render: onto an unseen write, or as a region-only change after a seen one. */
export function joinManagedRenders(db: DB): number {
  return attachManagedWrites(db) + claimManagedRenders(db);
}
