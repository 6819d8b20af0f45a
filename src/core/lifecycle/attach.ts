import { writeTx, type DB } from '../db/connection';
import {
  deleteProvisionalAudit,
  fillFactFromLogLine,
  findBeforeSeenAt,
  findFirstUnsettledWriteFrom,
  findPreviousChangeAt,
  findProvisionalChange,
  findUnclaimedAuditLine,
  listPluginAuditsAfter,
  listUnsettledWritesBetween,
  markChangeCovers,
  markWriteCoalesced,
  moveChangeContent,
  moveFileStateAudit,
} from '../db/repositories/liveAttach';
import { findLastAuditRowid } from '../db/repositories/secretFlags';

/**
 * Joining a memory-file change to the plugin's audit of it.
 *
 * Live capture records every change it sees on disk at once, as a provisional source='external'
 * audit with before/after snapshots and the diff, timed by the file's modification time. The
 * plugin's own audit (from its logs) has no content. When both exist and belong together, the
 * content moves onto the plugin's audit and the provisional one is deleted; a change no plugin
 * audit claims simply stays an external write. Recording first and merging later means nothing
 * is lost when the workbench stops between the two, and any path that records external changes
 * (an import, a rollback) feeds the same merge.
 */

export interface OpenAudit {
  rowid: number;
  id: string;
  targetFile: string;
  status: string;
  createdAt: number;
  decisionId: string | null;
  decision: string | null;
  hasContent: boolean;
  hasFact: boolean;
  /** Judged part of a change that spans several writes (metadata.liveCapture.coalescedInto): no diff of its own. */
  settled: boolean;
}

export interface AttachResult {
  attached: boolean;
  factFilled: boolean;
  /** The provisional external audit whose content moved onto the plugin's audit. */
  fromAuditId?: string;
}

export class AuditAttacher {
  /** mtime is rounded to the millisecond; an audit line is never logged before its write. */
  private readonly toleranceMs = 2;
  constructor(
    private readonly db: DB,
    private readonly windowMs: number,
  ) {}

  maxRowid(): number {
    return findLastAuditRowid(this.db);
  }

  /** Plugin audits inserted after rowid, with what each still lacks. */
  auditsAfter(rowid: number): OpenAudit[] {
    return listPluginAuditsAfter(this.db, rowid).map((r) => ({
      ...r,
      hasContent: Boolean(r.hasContent),
      hasFact: Boolean(r.hasFact),
      settled: Boolean(r.settled),
    }));
  }

  /** Whether an audit still needs something live capture can give it. */
  static wants(a: OpenAudit): boolean {
    return (a.status === 'written' && !a.hasContent && !a.settled) || !a.hasFact;
  }

  /** Tries to complete one plugin audit: its content from a provisional change, its candidate fact from the audit log. */
  /**
   * fileScannedAt: when the audit's file was last seen settled on disk. The plugin writes a file
   * before logging the write, so a look taken after the audit's time has seen its change; before
   * that, the change may still be unseen and an older one must not be taken for it.
   */
  complete(a: OpenAudit, fileScannedAt = Number.MAX_SAFE_INTEGER): AttachResult {
    return writeTx(this.db, () => {
      const result: AttachResult = { attached: false, factFilled: false };
      if (!a.hasFact && a.decision) {
        // The audit-log line can reach the importer after the outcome line it belongs to; join it now.
        const line = findUnclaimedAuditLine(this.db, a.decision, a.status, a.createdAt - this.windowMs, a.createdAt);
        if (line) {
          fillFactFromLogLine(this.db, a.id, a.decisionId, line);
          a.hasFact = true;
          result.factFilled = true;
        }
      }
      if (a.status === 'written' && !a.hasContent && !a.settled && fileScannedAt > a.createdAt) {
        const change = findProvisionalChange(this.db, a.targetFile, a.createdAt - this.windowMs, a.createdAt + this.toleranceMs);
        const writers = change ? this.writersOf(a, change) : undefined;
        if (change && writers && writers.length === 1) {
          const moved = moveChangeContent(this.db, change.id, a.id, change.createdAt);
          if (moved) {
            moveFileStateAudit(this.db, change.id, a.id);
            deleteProvisionalAudit(this.db, change.id);
            a.hasContent = true;
            result.attached = true;
            result.fromAuditId = change.id;
          }
        } else if (change && writers) {
          // One change on disk, several plugin writes: the diff belongs to none of them alone.
          // It stays an external write naming them, and they are settled without a diff.
          for (const id of writers) markWriteCoalesced(this.db, id, change.id);
          markChangeCovers(this.db, change.id, JSON.stringify(writers));
          a.settled = true;
        }
      }
      return result;
    });
  }

  /**
   * Which plugin writes made this change. The plugin logs a write after making it and writes one
   * file at a time, so the write that made the change is the first unsettled audit logged at or
   * after the file's modification time; any unsettled audit logged between the file's previous
   * known state and that time is a write whose own change was never seen (two writes between two
   * looks, or writes made while the workbench was closed): it is inside this change too.
   * Undefined when this audit is not the change's last write (its own change is still to come).
   */
  private writersOf(a: OpenAudit, change: { id: string; createdAt: number }): string[] | undefined {
    const changedAt = change.createdAt - this.toleranceMs;
    if (findFirstUnsettledWriteFrom(this.db, a.targetFile, changedAt) !== a.id) return undefined;
    const prevChange = findPreviousChangeAt(this.db, a.targetFile, change.createdAt, change.id);
    const beforeSeen = findBeforeSeenAt(this.db, change.id);
    // With no known previous state (the file did not exist), look back one window only.
    const from =
      prevChange === null && beforeSeen === undefined ? change.createdAt - this.windowMs : Math.max(prevChange ?? 0, beforeSeen ?? 0);
    const earlier = listUnsettledWritesBetween(this.db, a.targetFile, from, changedAt, a.id);
    return [...earlier, a.id];
  }
}
