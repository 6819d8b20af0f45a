// The version history of each memory file as a hash chain. Every recorded write whose resulting
// content is known becomes one version, in history order (created_at, then audit rowid). The
// recorder calls chainWrite() in the same transaction as the audit insert, so the chain is always
// current; syncVersions() catches up on anything recorded before this migration existed.
import { ulid } from 'ulid';
import type { MemoryFileName } from '../../shared/domain';
import type { DB } from '../db/connection';
import { sha256 } from '../text/diff';

export const GENESIS_LINK = '0'.repeat(64);

export interface VersionRow {
  file_name: MemoryFileName;
  seq: number;
  audit_id: string;
  audit_rowid: number;
  content_hash: string | null;
  prev_link: string;
  link: string;
  line_map: string | null;
  origins: string | null;
  created_at: number;
}

interface ChainableAudit {
  id: string;
  rowid: number;
  target_file: MemoryFileName;
  content_hash: string | null;
  created_at: number;
}

/** The link of one version: binds it to its predecessor, its position, its write and its content. */
export function linkOf(prev: string, file: string, seq: number, auditId: string, contentHash: string | null): string {
  return sha256(`${prev}\n${file}\n${seq}\n${auditId}\n${contentHash ?? 'absent'}`);
}

// A write counts as a version when it changed the file and what it left is known (a deletion has a diff but no after-snapshot).
const VERSION_AUDITS = `SELECT a.id, a.rowid AS rowid, a.target_file, s.content_hash, a.created_at
  FROM write_guardian_audit a LEFT JOIN file_snapshots s ON s.id = a.after_snapshot_id
  WHERE a.status IN ('written', 'rolled_back') AND (a.after_snapshot_id IS NOT NULL OR a.diff IS NOT NULL)`;

const statementCache = new WeakMap<DB, ReturnType<typeof prepare>>();

function prepare(db: DB) {
  return {
    audit: db.prepare(`${VERSION_AUDITS} AND a.id = ?`),
    head: db.prepare('SELECT * FROM memory_versions WHERE file_name = ? ORDER BY seq DESC LIMIT 1'),
    insert: db.prepare(
      `INSERT INTO memory_versions (file_name, seq, audit_id, audit_rowid, content_hash, prev_link, link, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  };
}

function statements(db: DB) {
  let s = statementCache.get(db);
  if (!s) {
    s = prepare(db);
    statementCache.set(db, s);
  }
  return s;
}

const isAfter = (a: { created_at: number; rowid: number }, head: VersionRow) =>
  a.created_at > head.created_at || (a.created_at === head.created_at && a.rowid > head.audit_rowid);

/**
 * Adds the write to its file's chain. Call inside the transaction that inserted the audit.
 * Writes that are not versions (refused, content unknown) are ignored. A write older than the
 * chain head (history imported late) is inserted in place and the rest re-chained, recorded as a chain event.
 */
export function chainWrite(db: DB, auditId: string): void {
  const s = statements(db);
  const a = s.audit.get(auditId) as ChainableAudit | undefined;
  if (!a) return;
  const head = s.head.get(a.target_file) as VersionRow | undefined;
  if (!head || isAfter(a, head)) {
    const seq = (head?.seq ?? 0) + 1;
    const prev = head?.link ?? GENESIS_LINK;
    s.insert.run(a.target_file, seq, a.id, a.rowid, a.content_hash, prev, linkOf(prev, a.target_file, seq, a.id, a.content_hash), a.created_at);
    return;
  }
  insertInPlace(db, a, head);
}

const PARKED = 1_000_000_000;

function insertInPlace(db: DB, a: ChainableAudit, head: VersionRow): void {
  const file = a.target_file;
  const later = db
    .prepare('SELECT * FROM memory_versions WHERE file_name = ? AND (created_at > ? OR (created_at = ? AND audit_rowid > ?)) ORDER BY seq')
    .all(file, a.created_at, a.created_at, a.rowid) as VersionRow[];
  const fromSeq = later[0].seq;
  // Move the later rows out of the way so the primary key never collides while renumbering.
  db.prepare('UPDATE memory_versions SET seq = seq + ? WHERE file_name = ? AND seq >= ?').run(PARKED, file, fromSeq);
  db.prepare('INSERT INTO memory_versions (file_name, seq, audit_id, audit_rowid, content_hash, prev_link, link, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
    file, fromSeq, a.id, a.rowid, a.content_hash, '', GENESIS_LINK, a.created_at,
  );
  db.prepare('UPDATE memory_versions SET seq = seq - ? + 1 WHERE file_name = ? AND seq > ?').run(PARKED, file, PARKED);
  rechain(db, file, fromSeq, 'an earlier write was recorded after later ones (imported history)', null, head.link);
}

/**
 * Recomputes the links from fromSeq to the head (after content hashes changed or versions were
 * inserted) and drops the line maps from there, which blame rebuilds. Records a chain event.
 */
export function rechain(db: DB, file: MemoryFileName, fromSeq: number, reason: string, erasureId: string | null, oldHead?: string, at = Date.now()): void {
  const previous = fromSeq > 1 ? (db.prepare('SELECT link FROM memory_versions WHERE file_name = ? AND seq = ?').pluck().get(file, fromSeq - 1) as string) : GENESIS_LINK;
  const rows = db.prepare('SELECT seq, audit_id, content_hash FROM memory_versions WHERE file_name = ? AND seq >= ? ORDER BY seq').all(file, fromSeq) as VersionRow[];
  const update = db.prepare('UPDATE memory_versions SET prev_link = ?, link = ?, line_map = NULL, origins = NULL WHERE file_name = ? AND seq = ?');
  let prev = previous;
  for (const r of rows) {
    const link = linkOf(prev, file, r.seq, r.audit_id, r.content_hash);
    update.run(prev, link, file, r.seq);
    prev = link;
  }
  // An import of old history inserts many writes in place one after another: one event covers the run.
  const recent = erasureId
    ? undefined
    : (db.prepare('SELECT id FROM memory_chain_events WHERE file_name = ? AND reason = ? AND erasure_id IS NULL AND created_at >= ? ORDER BY created_at DESC LIMIT 1').pluck().get(file, reason, at - COALESCE_MS) as string | undefined);
  if (recent) {
    db.prepare('UPDATE memory_chain_events SET from_seq = min(from_seq, ?), new_head = ?, created_at = ? WHERE id = ?').run(fromSeq, prev, at, recent);
    return;
  }
  db.prepare('INSERT INTO memory_chain_events (id, file_name, from_seq, reason, erasure_id, old_head, new_head, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
    ulid(), file, fromSeq, reason, erasureId, oldHead ?? null, prev, at,
  );
}

const COALESCE_MS = 60_000;

/** Chains every version-worthy write not in a chain yet (databases recorded before this feature). Returns how many. */
export function syncVersions(db: DB, file?: MemoryFileName): number {
  const rows = db
    .prepare(
      `${VERSION_AUDITS} ${file ? 'AND a.target_file = ?' : ''}
       AND NOT EXISTS (SELECT 1 FROM memory_versions v WHERE v.audit_id = a.id) ORDER BY a.created_at, a.rowid`,
    )
    .pluck(false)
    .all(...(file ? [file] : [])) as ChainableAudit[];
  if (!rows.length) return 0;
  const run = db.transaction(() => rows.forEach((r) => chainWrite(db, r.id)));
  if (db.inTransaction) run();
  else run.immediate();
  return rows.length;
}

export function headVersion(db: DB, file: MemoryFileName): VersionRow | undefined {
  return statements(db).head.get(file) as VersionRow | undefined;
}
