// Tamper evidence: walks each file's hash chain and reports every break — a version row edited, a
// version missing or reordered, a snapshot whose content no longer matches its recorded hash, a
// write missing from the chain, and a file on disk matching no recorded version. Deliberate
// re-chains (erasures, history imported late) are listed as events, each naming its reason.
import { MEMORY_FILES, type MemoryFileName } from '../../shared/domain';
import type { DB } from '../db/connection';
import {
  isKnownContent,
  listChainEvents,
  listChainForVerify,
  listUnchainedOlderWrites,
  type ChainCheckRow,
  type ChainEvent,
} from '../db/repositories/memoryVersions';
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
  events: ChainEvent[];
}

function verifyChain(db: DB, file: MemoryFileName, breaks: ChainBreak[]): { versions: number; headLink: string | null } {
  const rows = listChainForVerify(db, file);
  let prev = GENESIS_LINK;
  let expectedSeq = 1;
  const add = (kind: BreakKind, r: ChainCheckRow, message: string) =>
    breaks.push({ kind, fileName: file, seq: r.seq, auditId: r.audit_id, message });
  for (const r of rows) {
    if (r.seq !== expectedSeq) {
      add('missing_version', r, `${file}: version(s) ${expectedSeq}..${r.seq - 1} are missing before version ${r.seq}`);
    } else if (r.prev_link !== prev) {
      add(
        'missing_version',
        r,
        `${file} version ${r.seq}: its link to the previous version does not match (a version was removed, replaced or reordered)`,
      );
    }
    if (linkOf(r.prev_link, file, r.seq, r.audit_id, r.content_hash) !== r.link) {
      add('edited_version', r, `${file} version ${r.seq}: the version row was edited (its link does not match its fields)`);
    }
    if (r.audit_exists === null) {
      if (!r.deletion_recorded)
        add('missing_write', r, `${file} version ${r.seq}: its write ${r.audit_id} is missing from the audit table`);
    } else {
      const actual = r.content === null ? null : sha256(r.content);
      if (actual !== r.content_hash || (r.content !== null && r.snapshot_hash !== actual)) {
        add('edited_content', r, `${file} version ${r.seq}: the stored content of write ${r.audit_id} was changed after it was recorded`);
      }
    }
    prev = r.link;
    expectedSeq = r.seq + 1;
  }
  return { versions: rows.length, headLink: rows.at(-1)?.link ?? null };
}

function unchainedOlderWrites(db: DB, file: MemoryFileName, breaks: ChainBreak[]): void {
  for (const r of listUnchainedOlderWrites(db, file)) {
    breaks.push({
      kind: 'unchained_write',
      fileName: file,
      seq: null,
      auditId: r.id,
      message: `${file}: write ${r.id} is older than the chain head but not in the chain (its version was removed)`,
    });
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
  if (!isKnownContent(ctx.db, file, hash)) {
    breaks.push({
      kind: 'disk_unrecorded',
      fileName: file,
      seq: null,
      auditId: null,
      message: `${file} on disk matches no recorded version (an edit not recorded yet: run \`reflection guardian reconcile\` to record it)`,
    });
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
    files.push({
      fileName: file,
      versions: summary.versions,
      headLink: summary.headLink,
      breaks: breaks.filter((b) => b.fileName === file).length,
    });
  }
  const events = listChainEvents(ctx.db);
  return { ok: breaks.length === 0, checkedAt: Date.now(), files, breaks, chained, events };
}
