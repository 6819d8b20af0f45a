// Memory-file versions as a hash chain (memory_versions), its chain events and the per-version line
// maps blame stores. The links are computed by the health service; this file only reads and writes rows.
import type { BlameWrite } from '../../../shared/contract/health';
import type { MemoryFileName } from '../../../shared/domain';
import type { DB } from '../connection';
import { stmt } from '../statements';

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

/** A recorded write that can become a version. */
export interface ChainableAudit {
  id: string;
  rowid: number;
  target_file: MemoryFileName;
  content_hash: string | null;
  created_at: number;
}

// A write counts as a version when it changed the file and what it left is known (a deletion has a diff but no after-snapshot).
const VERSION_AUDITS = `SELECT a.id, a.rowid AS rowid, a.target_file, s.content_hash, a.created_at
  FROM write_guardian_audit a LEFT JOIN file_snapshots s ON s.id = a.after_snapshot_id
  WHERE a.status IN ('written', 'rolled_back') AND (a.after_snapshot_id IS NOT NULL OR a.diff IS NOT NULL)`;

/** VERSION_AUDITS's rule for a writer that holds the row it just inserted (the recorder): keep the two in step. */
export function isVersionWrite(status: string, afterSnapshotId: string | null, diff: string | null): boolean {
  return (status === 'written' || status === 'rolled_back') && (afterSnapshotId !== null || diff !== null);
}

export function findChainableAudit(db: DB, auditId: string): ChainableAudit | undefined {
  return stmt<ChainableAudit>(db, `${VERSION_AUDITS} AND a.id = ?`).get(auditId);
}

/** Version-worthy writes not in a chain yet, oldest first (all files, or one). */
export function listUnchainedAudits(db: DB, file?: MemoryFileName): ChainableAudit[] {
  const sql = `${VERSION_AUDITS} ${file ? 'AND a.target_file = ?' : ''}
       AND NOT EXISTS (SELECT 1 FROM memory_versions v WHERE v.audit_id = a.id) ORDER BY a.created_at, a.rowid`;
  return stmt<ChainableAudit>(db, sql).all(...(file ? [file] : []));
}

/** Whether the file has a version-worthy write after the given audit rowid. */
export function hasWriteAfter(db: DB, file: MemoryFileName, auditRowid: number): boolean {
  const sql =
    "SELECT 1 FROM write_guardian_audit WHERE target_file = ? AND rowid > ? AND status IN ('written', 'rolled_back') AND (after_snapshot_id IS NOT NULL OR diff IS NOT NULL) LIMIT 1";
  return stmt(db, sql).get(file, auditRowid) !== undefined;
}

export function findHeadVersion(db: DB, file: MemoryFileName): VersionRow | undefined {
  return stmt<VersionRow>(db, 'SELECT * FROM memory_versions WHERE file_name = ? ORDER BY seq DESC LIMIT 1').get(file);
}

export function findVersionLink(db: DB, file: MemoryFileName, seq: number): string | undefined {
  return stmt(db, 'SELECT link FROM memory_versions WHERE file_name = ? AND seq = ?').pluck().get(file, seq) as string | undefined;
}

export function insertVersion(db: DB, v: Omit<VersionRow, 'line_map' | 'origins'>): void {
  stmt(
    db,
    `INSERT INTO memory_versions (file_name, seq, audit_id, audit_rowid, content_hash, prev_link, link, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(v.file_name, v.seq, v.audit_id, v.audit_rowid, v.content_hash, v.prev_link, v.link, v.created_at);
}

/** Versions recorded after the given write position (created_at, then audit rowid), in chain order. */
export function listVersionsAfter(db: DB, file: MemoryFileName, createdAt: number, auditRowid: number): VersionRow[] {
  return stmt<VersionRow>(
    db,
    'SELECT * FROM memory_versions WHERE file_name = ? AND (created_at > ? OR (created_at = ? AND audit_rowid > ?)) ORDER BY seq',
  ).all(file, createdAt, createdAt, auditRowid);
}

/** Adds `by` to the seq of every version from fromSeq (a negative `by` moves them back). */
export function shiftVersionSeqs(db: DB, file: MemoryFileName, fromSeq: number, by: number): void {
  stmt(db, 'UPDATE memory_versions SET seq = seq + ? WHERE file_name = ? AND seq >= ?').run(by, file, fromSeq);
}

export function listVersionsFrom(
  db: DB,
  file: MemoryFileName,
  fromSeq: number,
): Array<Pick<VersionRow, 'seq' | 'audit_id' | 'content_hash'>> {
  return stmt<Pick<VersionRow, 'seq' | 'audit_id' | 'content_hash'>>(
    db,
    'SELECT seq, audit_id, content_hash FROM memory_versions WHERE file_name = ? AND seq >= ? ORDER BY seq',
  ).all(file, fromSeq);
}

/** Sets a version's links and drops its line map, which blame rebuilds. */
export function updateVersionLinks(db: DB, file: MemoryFileName, seq: number, prevLink: string, link: string): void {
  stmt(db, 'UPDATE memory_versions SET prev_link = ?, link = ?, line_map = NULL, origins = NULL WHERE file_name = ? AND seq = ?').run(
    prevLink,
    link,
    file,
    seq,
  );
}

export function listVersionsWithHashes(db: DB, file: MemoryFileName, hashes: string[]): Array<{ seq: number; content_hash: string }> {
  return stmt<{ seq: number; content_hash: string }>(
    db,
    'SELECT seq, content_hash FROM memory_versions WHERE file_name = ? AND content_hash IN (SELECT value FROM json_each(?)) ORDER BY seq',
  ).all(file, JSON.stringify(hashes));
}

export function updateVersionContentHash(db: DB, file: MemoryFileName, seq: number, contentHash: string): void {
  stmt(db, 'UPDATE memory_versions SET content_hash = ? WHERE file_name = ? AND seq = ?').run(contentHash, file, seq);
}

/** The newest unerased chain event for this file and reason since `since`, to extend instead of adding another. */
export function findRecentChainEvent(db: DB, file: MemoryFileName, reason: string, since: number): string | undefined {
  const sql =
    'SELECT id FROM memory_chain_events WHERE file_name = ? AND reason = ? AND erasure_id IS NULL AND created_at >= ? ORDER BY created_at DESC LIMIT 1';
  return stmt(db, sql).pluck().get(file, reason, since) as string | undefined;
}

export function extendChainEvent(db: DB, id: string, fromSeq: number, newHead: string, at: number): void {
  stmt(db, 'UPDATE memory_chain_events SET from_seq = min(from_seq, ?), new_head = ?, created_at = ? WHERE id = ?').run(
    fromSeq,
    newHead,
    at,
    id,
  );
}

export interface ChainEventInsert {
  id: string;
  fileName: MemoryFileName;
  fromSeq: number;
  reason: string;
  erasureId: string | null;
  oldHead: string | null;
  newHead: string;
  createdAt: number;
}

export function insertChainEvent(db: DB, e: ChainEventInsert): void {
  stmt(
    db,
    'INSERT INTO memory_chain_events (id, file_name, from_seq, reason, erasure_id, old_head, new_head, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(e.id, e.fileName, e.fromSeq, e.reason, e.erasureId, e.oldHead, e.newHead, e.createdAt);
}

export interface ChainEvent {
  fileName: string;
  fromSeq: number;
  reason: string;
  erasureId: string | null;
  createdAt: number;
}

export function listChainEvents(db: DB): ChainEvent[] {
  const sql =
    'SELECT file_name AS fileName, from_seq AS fromSeq, reason, erasure_id AS erasureId, created_at AS createdAt FROM memory_chain_events ORDER BY created_at';
  return stmt<ChainEvent>(db, sql).all();
}

/** A version with everything verify checks it against: its write, its snapshot, a recorded deletion. */
export interface ChainCheckRow {
  seq: number;
  audit_id: string;
  content_hash: string | null;
  prev_link: string;
  link: string;
  audit_exists: number | null;
  after_snapshot_id: string | null;
  content: string | null;
  snapshot_hash: string | null;
  deletion_recorded: number | null;
}

export function listChainForVerify(db: DB, file: MemoryFileName): ChainCheckRow[] {
  return stmt<ChainCheckRow>(
    db,
    `SELECT v.seq, v.audit_id, v.content_hash, v.prev_link, v.link, a.rowid AS audit_exists, a.after_snapshot_id, s.content, s.content_hash AS snapshot_hash,
              (SELECT 1 FROM memory_chain_events e WHERE e.id = 'deleted:' || v.audit_id) AS deletion_recorded
       FROM memory_versions v LEFT JOIN write_guardian_audit a ON a.id = v.audit_id LEFT JOIN file_snapshots s ON s.id = a.after_snapshot_id
       WHERE v.file_name = ? ORDER BY v.seq`,
  ).all(file);
}

/** Version-worthy writes older than the chain head that are not in the chain (their version was removed). */
export function listUnchainedOlderWrites(db: DB, file: MemoryFileName): Array<{ id: string; created_at: number }> {
  return stmt<{ id: string; created_at: number }>(
    db,
    `SELECT a.id, a.created_at FROM write_guardian_audit a
       WHERE a.target_file = ? AND a.status IN ('written', 'rolled_back') AND (a.after_snapshot_id IS NOT NULL OR a.diff IS NOT NULL)
         AND NOT EXISTS (SELECT 1 FROM memory_versions v WHERE v.audit_id = a.id)
         AND a.created_at < (SELECT max(created_at) FROM memory_versions WHERE file_name = ?)`,
  ).all(file, file);
}

/** Whether this content was ever a recorded version of the file, or is the content last seen on disk. */
export function isKnownContent(db: DB, file: MemoryFileName, contentHash: string): boolean {
  return (
    stmt(db, 'SELECT 1 FROM memory_versions WHERE file_name = ? AND content_hash = ? LIMIT 1').get(file, contentHash) !== undefined ||
    stmt(db, 'SELECT 1 FROM file_state WHERE file_name = ? AND content_hash = ?').get(file, contentHash) !== undefined
  );
}

export interface VersionContent extends VersionRow {
  content: string | null;
}

export function listVersionsWithContent(db: DB, file: MemoryFileName, fromSeq: number, toSeq: number): VersionContent[] {
  return stmt<VersionContent>(
    db,
    `SELECT v.*, s.content FROM memory_versions v
  LEFT JOIN write_guardian_audit a ON a.id = v.audit_id LEFT JOIN file_snapshots s ON s.id = a.after_snapshot_id
  WHERE v.file_name = ? AND v.seq BETWEEN ? AND ? ORDER BY v.seq`,
  ).all(file, fromSeq, toSeq);
}

export function findLastMappedSeq(db: DB, file: MemoryFileName): number {
  return (
    (stmt(db, 'SELECT max(seq) FROM memory_versions WHERE file_name = ? AND line_map IS NOT NULL').pluck().get(file) as number | null) ?? 0
  );
}

export function updateVersionLineMap(db: DB, file: MemoryFileName, seq: number, lineMap: string, origins: string | null): void {
  stmt(db, 'UPDATE memory_versions SET line_map = ?, origins = ? WHERE file_name = ? AND seq = ?').run(lineMap, origins, file, seq);
}

/** The write behind one version, with its decision: what blame shows for a line. */
export function findVersionWrite(db: DB, file: MemoryFileName, seq: number): BlameWrite | undefined {
  return stmt<BlameWrite>(
    db,
    `SELECT v.seq, v.audit_id AS auditId, a.source, a.status, a.decision_id AS decisionId, d.decision, a.turn_id AS turnId,
              a.session_id AS sessionId, a.candidate_fact AS candidateFact, a.reason, v.created_at AS createdAt
       FROM memory_versions v LEFT JOIN write_guardian_audit a ON a.id = v.audit_id
       LEFT JOIN memory_gate_decisions d ON d.id = a.decision_id
       WHERE v.file_name = ? AND v.seq = ?`,
  ).get(file, seq);
}

export function hasMemoryVersionsTable(db: DB): boolean {
  return stmt(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memory_versions'").get() !== undefined;
}
