// Tamper evidence: walks each file's hash chain and reports every break — a version row edited, a
// version missing or reordered, a snapshot whose content no longer matches its recorded hash, a
// write missing from the chain, and a file on disk matching no recorded version. Deliberate
// re-chains (erasures, history imported late) are listed as events, each naming its reason.
import { MEMORY_FILES, type MemoryFileName } from '../../shared/domain';
import type { DB } from '../db/connection';
import { readMemoryFile } from '../files/memoryFiles';
import type { ServiceContext } from '../context';
import { sha256 } from '../text/diff';
import { GENESIS_LINK, linkOf, syncVersions } from './versions';

export type BreakKind = 'edited_version' | 'missing_version' | 'edited_content' | 'missing_write' | 'unchained_write' | 'disk_unrecorded';

export interface ChainBreak {
  kind: BreakKind;
  fileName: MemoryFileName;
  seq: number | null;
  auditId: string | null;
  message: string;
}

export interface VerifyResult {
  ok: boolean;
  checkedAt: number;
  files: Array<{ fileName: MemoryFileName; versions: number; headLink: string | null; breaks: number }>;
  breaks: ChainBreak[];
  /** Writes recorded without the chain hook (older databases) that verify added to the chain. */
  chained: number;
  events: Array<{ fileName: string; fromSeq: number; reason: string; erasureId: string | null; createdAt: number }>;
}

interface ChainRow {
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

function verifyChain(db: DB, file: MemoryFileName, breaks: ChainBreak[]): { versions: number; headLink: string | null } {
  const rows = db
    .prepare(
      `SELECT v.seq, v.audit_id, v.content_hash, v.prev_link, v.link, a.rowid AS audit_exists, a.after_snapshot_id, s.content, s.content_hash AS snapshot_hash,
              (SELECT 1 FROM memory_chain_events e WHERE e.id = 'deleted:' || v.audit_id) AS deletion_recorded
       FROM memory_versions v LEFT JOIN write_guardian_audit a ON a.id = v.audit_id LEFT JOIN file_snapshots s ON s.id = a.after_snapshot_id
       WHERE v.file_name = ? ORDER BY v.seq`,
    )
    .all(file) as ChainRow[];
  let prev = GENESIS_LINK;
  let expectedSeq = 1;
  const add = (kind: BreakKind, r: ChainRow, message: string) => breaks.push({ kind, fileName: file, seq: r.seq, auditId: r.audit_id, message });
  for (const r of rows) {
    if (r.seq !== expectedSeq) {
      add('missing_version', r, `${file}: version(s) ${expectedSeq}..${r.seq - 1} are missing before version ${r.seq}`);
    } else if (r.prev_link !== prev) {
      add('missing_version', r, `${file} version ${r.seq}: its link to the previous version does not match (a version was removed, replaced or reordered)`);
    }
    if (linkOf(r.prev_link, file, r.seq, r.audit_id, r.content_hash) !== r.link) {
      add('edited_version', r, `${file} version ${r.seq}: the version row was edited (its link does not match its fields)`);
    }
    if (r.audit_exists === null) {
      if (!r.deletion_recorded) add('missing_write', r, `${file} version ${r.seq}: its write ${r.audit_id} is missing from the audit table`);
    } else {
      const actual = r.content === null ? null : sha256(r.content);
      if (actual !== r.content_hash || (r.content !== null && r.snapshot_hash !== actual)) {
        add('edited_content', r, `${file} version ${r.seq}: the stored content of write ${r.audit_id} was changed after it was recorded`);
      }
    }
    prev = r.link;
    expectedSeq = r.seq + 1;
  }
  return { versions: rows.length, headLink: rows.length ? rows[rows.length - 1].link : null };
}

function unchainedOlderWrites(db: DB, file: MemoryFileName, breaks: ChainBreak[]): void {
  const rows = db
    .prepare(
      `SELECT a.id, a.created_at FROM write_guardian_audit a
       WHERE a.target_file = ? AND a.status IN ('written', 'rolled_back') AND (a.after_snapshot_id IS NOT NULL OR a.diff IS NOT NULL)
         AND NOT EXISTS (SELECT 1 FROM memory_versions v WHERE v.audit_id = a.id)
         AND a.created_at < (SELECT max(created_at) FROM memory_versions WHERE file_name = ?)`,
    )
    .all(file, file) as Array<{ id: string; created_at: number }>;
  for (const r of rows) {
    breaks.push({ kind: 'unchained_write', fileName: file, seq: null, auditId: r.id, message: `${file}: write ${r.id} is older than the chain head but not in the chain (its version was removed)` });
  }
}

function checkDisk(ctx: ServiceContext, file: MemoryFileName, breaks: ChainBreak[]): void {
  let content: string | null;
  try {
    content = readMemoryFile(ctx.workspaceDir, file);
  } catch {
    return; // unsafe to read (e.g. a symlink out of the workspace): not a chain question
  }
  if (content === null) return;
  const hash = sha256(content);
  const known =
    ctx.db.prepare('SELECT 1 FROM memory_versions WHERE file_name = ? AND content_hash = ? LIMIT 1').pluck().get(file, hash) ??
    ctx.db.prepare('SELECT 1 FROM file_state WHERE file_name = ? AND content_hash = ?').pluck().get(file, hash);
  if (!known) {
    breaks.push({ kind: 'disk_unrecorded', fileName: file, seq: null, auditId: null, message: `${file} on disk matches no recorded version (an edit not recorded yet: run \`reflection guardian reconcile\` to record it)` });
  }
}

/** Verifies every memory file's chain (and the files on disk). */
export function verifyChains(ctx: ServiceContext, options: { disk?: boolean } = {}): VerifyResult {
  const breaks: ChainBreak[] = [];
  const files: VerifyResult['files'] = [];
  let chained = 0;
  for (const file of MEMORY_FILES) {
    unchainedOlderWrites(ctx.db, file, breaks);
    let summary = verifyChain(ctx.db, file, breaks);
    // Catch up on writes recorded without the hook; older missing ones were reported above, not re-chained.
    const added = breaks.some((b) => b.fileName === file) ? 0 : syncVersions(ctx.db, file);
    if (added) summary = verifyChain(ctx.db, file, []);
    chained += added;
    if (options.disk !== false) checkDisk(ctx, file, breaks);
    files.push({ fileName: file, versions: summary.versions, headLink: summary.headLink, breaks: breaks.filter((b) => b.fileName === file).length });
  }
  const events = ctx.db
    .prepare('SELECT file_name AS fileName, from_seq AS fromSeq, reason, erasure_id AS erasureId, created_at AS createdAt FROM memory_chain_events ORDER BY created_at')
    .all() as VerifyResult['events'];
  return { ok: breaks.length === 0, checkedAt: Date.now(), files, breaks, chained, events };
}
