import { writeTx, type DB } from '../db/connection';

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

const UNSETTLED = `source = 'plugin' AND status = 'written' AND before_snapshot_id IS NULL AND after_snapshot_id IS NULL
  AND diff IS NULL AND json_extract(coalesce(metadata, '{}'), '$.liveCapture') IS NULL`;

export class AuditAttacher {
  private readonly s;
  /** mtime is rounded to the millisecond; an audit line is never logged before its write. */
  private readonly toleranceMs = 2;
  constructor(private readonly db: DB, private readonly windowMs: number) {
    this.s = {
      newAudits: db.prepare(`SELECT a.rowid AS rowid, a.id, a.target_file AS targetFile, a.status, a.created_at AS createdAt,
          a.decision_id AS decisionId, d.decision,
          (a.before_snapshot_id IS NOT NULL OR a.after_snapshot_id IS NOT NULL OR a.diff IS NOT NULL) AS hasContent,
          (a.candidate_fact IS NOT NULL) AS hasFact,
          (json_extract(coalesce(a.metadata, '{}'), '$.liveCapture') IS NOT NULL) AS settled
        FROM write_guardian_audit a LEFT JOIN memory_gate_decisions d ON d.id = a.decision_id
        WHERE a.rowid > ? AND a.source = 'plugin' ORDER BY a.rowid`),
      maxRowid: db.prepare('SELECT coalesce(max(rowid), 0) FROM write_guardian_audit').pluck(),
      provisional: db.prepare(`SELECT e.id, e.created_at AS createdAt FROM write_guardian_audit e
        WHERE e.source = 'external' AND e.status = 'written' AND e.target_file = @file
          AND e.created_at BETWEEN @from AND @to
          AND json_extract(coalesce(e.metadata, '{}'), '$.liveCapture') IS NULL
          AND NOT EXISTS (SELECT 1 FROM rollbacks r WHERE r.audit_id = e.id OR r.rollback_audit_id = e.id)
          AND NOT EXISTS (SELECT 1 FROM behavior_corrections c WHERE c.audit_id = e.id OR c.retry_audit_id = e.id)
          AND NOT EXISTS (SELECT 1 FROM dataset_samples s WHERE s.audit_id = e.id)
          AND NOT EXISTS (SELECT 1 FROM write_guardian_audit x WHERE x.related_audit_id = e.id)
        ORDER BY e.created_at DESC LIMIT 1`),
      previousChangeAt: db.prepare(`SELECT max(created_at) FROM write_guardian_audit
        WHERE target_file = @file AND created_at < @at AND id <> @id AND (after_snapshot_id IS NOT NULL OR diff IS NOT NULL)`).pluck(),
      beforeSeenAt: db.prepare('SELECT s.created_at FROM write_guardian_audit e JOIN file_snapshots s ON s.id = e.before_snapshot_id WHERE e.id = ?').pluck(),
      unsettledWritesBetween: db.prepare(`SELECT id FROM write_guardian_audit
        WHERE target_file = @file AND ${UNSETTLED} AND created_at > @from AND created_at < @to AND id <> @id ORDER BY created_at`).pluck(),
      firstUnsettledWriteFrom: db.prepare(`SELECT id FROM write_guardian_audit
        WHERE target_file = @file AND ${UNSETTLED} AND created_at >= @from ORDER BY created_at, rowid LIMIT 1`).pluck(),
      markCoalesced: db.prepare(`UPDATE write_guardian_audit
        SET metadata = json_set(coalesce(metadata, '{}'), '$.liveCapture', json_object('coalescedInto', @change)) WHERE id = @id`),
      markCovers: db.prepare(`UPDATE write_guardian_audit
        SET metadata = json_set(coalesce(metadata, '{}'), '$.liveCapture', json_object('coversPluginWrites', json(@ids))) WHERE id = @change`),
      moveContent: db.prepare(`UPDATE write_guardian_audit SET
          (before_snapshot_id, after_snapshot_id, diff, lines_added, lines_removed, lines_modified) =
          (SELECT before_snapshot_id, after_snapshot_id, diff, lines_added, lines_removed, lines_modified FROM write_guardian_audit WHERE id = @from),
          metadata = json_set(coalesce(metadata, '{}'), '$.liveCapture', json_object('changedAt', @changedAt, 'provisionalAuditId', @from))
        WHERE id = @to AND before_snapshot_id IS NULL AND after_snapshot_id IS NULL AND diff IS NULL`),
      moveFileState: db.prepare('UPDATE file_state SET audit_id = @to WHERE audit_id = @from'),
      deleteProvisional: db.prepare("DELETE FROM write_guardian_audit WHERE id = ? AND source = 'external'"),
      auditLine: db.prepare(`SELECT id, candidate_fact AS fact, reason FROM guardian_log_lines
        WHERE decision = ? AND status = ? AND at BETWEEN ? AND ? AND audit_id IS NULL AND candidate_fact IS NOT NULL
        ORDER BY at DESC LIMIT 1`),
      fillFact: db.prepare('UPDATE write_guardian_audit SET candidate_fact = ?, reason = coalesce(reason, ?) WHERE id = ? AND candidate_fact IS NULL'),
      fillDecisionFact: db.prepare('UPDATE memory_gate_decisions SET candidate_fact = ? WHERE id = ? AND candidate_fact IS NULL'),
      claimLine: db.prepare('UPDATE guardian_log_lines SET audit_id = ? WHERE id = ?'),
    };
  }

  maxRowid(): number {
    return this.s.maxRowid.get() as number;
  }

  /** Plugin audits inserted after rowid, with what each still lacks. */
  auditsAfter(rowid: number): OpenAudit[] {
    return (this.s.newAudits.all(rowid) as (Omit<OpenAudit, 'hasContent' | 'hasFact' | 'settled'> & { hasContent: number; hasFact: number; settled: number })[]).map((r) => ({
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
        const line = this.s.auditLine.get(a.decision, a.status, a.createdAt - this.windowMs, a.createdAt) as { id: string; fact: string; reason: string | null } | undefined;
        if (line) {
          this.s.fillFact.run(line.fact, line.reason, a.id);
          if (a.decisionId) this.s.fillDecisionFact.run(line.fact, a.decisionId);
          this.s.claimLine.run(a.id, line.id);
          a.hasFact = true;
          result.factFilled = true;
        }
      }
      if (a.status === 'written' && !a.hasContent && !a.settled && fileScannedAt > a.createdAt) {
        const change = this.s.provisional.get({ file: a.targetFile, from: a.createdAt - this.windowMs, to: a.createdAt + this.toleranceMs }) as
          | { id: string; createdAt: number }
          | undefined;
        const writers = change ? this.writersOf(a, change) : undefined;
        if (change && writers && writers.length === 1) {
          const moved = this.s.moveContent.run({ from: change.id, to: a.id, changedAt: change.createdAt }).changes;
          if (moved) {
            this.s.moveFileState.run({ from: change.id, to: a.id });
            this.s.deleteProvisional.run(change.id);
            a.hasContent = true;
            result.attached = true;
            result.fromAuditId = change.id;
          }
        } else if (change && writers) {
          // One change on disk, several plugin writes: the diff belongs to none of them alone.
          // It stays an external write naming them, and they are settled without a diff.
          for (const id of writers) this.s.markCoalesced.run({ id, change: change.id });
          this.s.markCovers.run({ change: change.id, ids: JSON.stringify(writers) });
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
    if (this.s.firstUnsettledWriteFrom.get({ file: a.targetFile, from: changedAt }) !== a.id) return undefined;
    const prevChange = this.s.previousChangeAt.get({ file: a.targetFile, at: change.createdAt, id: change.id }) as number | null;
    const beforeSeen = this.s.beforeSeenAt.get(change.id) as number | undefined;
    // With no known previous state (the file did not exist), look back one window only.
    const from = prevChange === null && beforeSeen === undefined ? change.createdAt - this.windowMs : Math.max(prevChange ?? 0, beforeSeen ?? 0);
    const earlier = this.s.unsettledWritesBetween.all({ file: a.targetFile, from, to: changedAt, id: a.id }) as string[];
    return [...earlier, a.id];
  }
}
