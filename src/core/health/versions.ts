// The version history of each memory file as a hash chain. Every recorded write whose resulting
// content is known becomes one version, in history order (created_at, then audit rowid). The
// recorder calls chainWrite() in the same transaction as the audit insert, so the chain is always
// current; syncVersions() catches up on anything recorded before this migration existed.
import { ulid } from 'ulid';
import type { MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { DB } from '../db/connection';
import {
  extendChainEvent,
  findChainableAudit,
  findHeadVersion,
  findRecentChainEvent,
  findVersionLink,
  insertChainEvent,
  insertVersion,
  listUnchainedAudits,
  listVersionsAfter,
  listVersionsFrom,
  shiftVersionSeqs,
  updateVersionLinks,
  type ChainableAudit,
  type VersionRow,
} from '../db/repositories/memoryVersions';
import { sha256 } from '../text/diff';

export type { VersionRow } from '../db/repositories/memoryVersions';

export const GENESIS_LINK = '0'.repeat(64);

/** The link of one version: binds it to its predecessor, its position, its write and its content. */
export function linkOf(prev: string, file: string, seq: number, auditId: string, contentHash: string | null): string {
  return sha256(`${prev}\n${file}\n${seq}\n${auditId}\n${contentHash ?? 'absent'}`);
}

const isAfter = (a: { created_at: number; rowid: number }, head: VersionRow) =>
  a.created_at > head.created_at || (a.created_at === head.created_at && a.rowid > head.audit_rowid);

/**
 * Adds the write to its file's chain. Call inside the transaction that inserted the audit.
 * Writes that are not versions (refused, content unknown) are ignored. A write older than the
 * chain head (history imported late) is inserted in place and the rest re-chained, recorded as a chain event.
 */
export function chainWrite(db: DB, auditId: string): void {
  const a = findChainableAudit(db, auditId);
  if (a) chainAudit(db, a);
}

/** chainWrite for a write whose chain fields the caller already holds (the recorder, which just inserted it). */
export function chainAudit(db: DB, a: ChainableAudit): void {
  const head = findHeadVersion(db, a.target_file);
  if (!head || isAfter(a, head)) {
    const seq = (head?.seq ?? 0) + 1;
    const prev = head?.link ?? GENESIS_LINK;
    const link = linkOf(prev, a.target_file, seq, a.id, a.content_hash);
    insertVersion(db, {
      file_name: a.target_file,
      seq,
      audit_id: a.id,
      audit_rowid: a.rowid,
      content_hash: a.content_hash,
      prev_link: prev,
      link,
      created_at: a.created_at,
    });
    return;
  }
  insertInPlace(db, a, head);
}

const PARKED = 1_000_000_000;

function insertInPlace(db: DB, a: ChainableAudit, head: VersionRow): void {
  const file = a.target_file;
  const later = listVersionsAfter(db, file, a.created_at, a.rowid);
  const fromSeq = later[0]?.seq;
  if (fromSeq === undefined) throw new AppError('Internal', `${file}: no version after ${a.id} to insert it before`);
  // Move the later rows out of the way so the primary key never collides while renumbering.
  shiftVersionSeqs(db, file, fromSeq, PARKED);
  insertVersion(db, {
    file_name: file,
    seq: fromSeq,
    audit_id: a.id,
    audit_rowid: a.rowid,
    content_hash: a.content_hash,
    prev_link: '',
    link: GENESIS_LINK,
    created_at: a.created_at,
  });
  shiftVersionSeqs(db, file, PARKED + 1, 1 - PARKED);
  rechain(db, file, fromSeq, 'an earlier write was recorded after later ones (imported history)', null, head.link);
}

/**
 * Recomputes the links from fromSeq to the head (after content hashes changed or versions were
 * inserted) and drops the line maps from there, which blame rebuilds. Records a chain event.
 */
export function rechain(
  db: DB,
  file: MemoryFileName,
  fromSeq: number,
  reason: string,
  erasureId: string | null,
  oldHead?: string,
  at = Date.now(),
): void {
  const previous = fromSeq > 1 ? (findVersionLink(db, file, fromSeq - 1) as string) : GENESIS_LINK;
  let prev = previous;
  for (const r of listVersionsFrom(db, file, fromSeq)) {
    const link = linkOf(prev, file, r.seq, r.audit_id, r.content_hash);
    updateVersionLinks(db, file, r.seq, prev, link);
    prev = link;
  }
  // An import of old history inserts many writes in place one after another: one event covers the run.
  const recent = erasureId ? undefined : findRecentChainEvent(db, file, reason, at - COALESCE_MS);
  if (recent) {
    extendChainEvent(db, recent, fromSeq, prev, at);
    return;
  }
  insertChainEvent(db, { id: ulid(), fileName: file, fromSeq, reason, erasureId, oldHead: oldHead ?? null, newHead: prev, createdAt: at });
}

const COALESCE_MS = 60_000;

/** Chains every version-worthy write not in a chain yet (databases recorded before this feature). Returns how many. */
export function syncVersions(db: DB, file?: MemoryFileName): number {
  const rows = listUnchainedAudits(db, file);
  if (!rows.length) return 0;
  const run = db.transaction(() => rows.forEach((r) => chainWrite(db, r.id)));
  if (db.inTransaction) run();
  else run.immediate();
  return rows.length;
}

export function headVersion(db: DB, file: MemoryFileName): VersionRow | undefined {
  return findHeadVersion(db, file);
}
