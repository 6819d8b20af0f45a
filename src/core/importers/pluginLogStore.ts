// Rows of the plugin-log importer beyond turns, decisions and audits (migration 0110): failed gate
// runs, decision outcomes, replay detection of log lines, and consolidation runs.
import type { DB } from '../db/connection';
import type { MemoryFileName } from '../../shared/domain';

export type GateFailureKind = 'llm_request_failed' | 'trigger_failed' | 'lost_in_restart';

export interface GateFailureRow {
  id: string;
  turnId: string | null;
  sessionId: string;
  kind: GateFailureKind;
  reason: string | null;
  source: string;
  createdAt: number;
}

/** How close the file change must follow the consolidation line that announced it. */
const CONSOLIDATION_LEAD_MS = 1000;

export class PluginLogStore {
  private readonly s;

  constructor(readonly db: DB) {
    this.s = {
      markEvent: db.prepare('INSERT OR IGNORE INTO plugin_log_events (id) VALUES (?)'),
      insertFailure: db.prepare(
        `INSERT OR IGNORE INTO memory_gate_failures (id, turn_id, session_id, kind, reason, source, created_at)
         VALUES (@id, @turnId, @sessionId, @kind, @reason, @source, @createdAt)`,
      ),
      setOutcome: db.prepare('UPDATE memory_gate_decisions SET outcome = ? WHERE id = ?'),
      // Only turns another source made (OpenClaw transcripts, the recorder): never a snapshot of these logs.
      // A transcript turn may hold several replies of one exchange; the exact reply, then the nearest, wins.
      transcriptTurn: db
        .prepare(
          `SELECT id FROM conversation_turns WHERE session_id = @session AND created_at BETWEEN @from AND @to
             AND json_extract(agent_metadata, '$.snapshotId') IS NULL
             AND user_message_content = @user AND instr(agent_message_content, @reply) > 0
           ORDER BY agent_message_content = @reply DESC, abs(created_at - @at) LIMIT 1`,
        )
        .pluck(),
      insertRun: db.prepare('INSERT OR IGNORE INTO consolidation_runs (id, at, files, source_file) VALUES (?, ?, ?, ?)'),
    };
  }

  /** False when the line was applied before (the same line in a copied, renamed or re-read log). */
  markEvent(id: string): boolean {
    return this.s.markEvent.run(id).changes > 0;
  }

  insertFailure(row: GateFailureRow): boolean {
    return this.s.insertFailure.run(row).changes > 0;
  }

  setOutcome(decisionId: string, outcome: string): void {
    this.s.setOutcome.run(outcome, decisionId);
  }

  transcriptTurn(sessionId: string, from: number, to: number, userContent: string, agentContent: string, at: number): string | undefined {
    return this.s.transcriptTurn.get({ session: sessionId, from, to, user: userContent, reply: agentContent, at }) as string | undefined;
  }

  insertConsolidationRun(id: string, at: number, files: MemoryFileName[], sourceFile: string): boolean {
    return this.s.insertRun.run(id, at, JSON.stringify(files), sourceFile).changes > 0;
  }
}

interface RunRow {
  id: string;
  at: number;
  files: string;
  claimed: string;
}

/**
 * Relabels the external changes that a consolidation run made: for each file it named, the first
 * external write recorded at or after the run, provided no plugin write of that file came between
 * (then the external change mixes several writers and stays external). Returns the audits claimed.
 */
export function claimConsolidationWrites(db: DB): string[] {
  const runs = db
    .prepare(`SELECT id, at, files, claimed FROM consolidation_runs WHERE json_array_length(claimed) < json_array_length(files) ORDER BY at`)
    .all() as RunRow[];
  if (!runs.length) return [];
  const firstExternal = db.prepare(
    `SELECT id, created_at AS createdAt FROM write_guardian_audit
     WHERE target_file = ? AND source = 'external' AND created_at >= ?
       AND json_extract(coalesce(metadata, '{}'), '$.origin') IS NULL
     ORDER BY created_at, rowid LIMIT 1`,
  );
  const pluginWriteBetween = db
    .prepare(`SELECT 1 FROM write_guardian_audit WHERE target_file = ? AND source = 'plugin' AND status = 'written' AND created_at > ? AND created_at < ? LIMIT 1`)
    .pluck();
  const relabel = db.prepare(
    `UPDATE write_guardian_audit SET source = 'consolidation', reason = 'rewritten by the plugin''s scheduled consolidation',
       metadata = json_patch(coalesce(metadata, '{}'), json_object('origin', 'consolidation', 'consolidationRun', ?))
     WHERE id = ?`,
  );
  const saveClaimed = db.prepare('UPDATE consolidation_runs SET claimed = ? WHERE id = ?');
  const claimedAudits: string[] = [];
  for (const run of runs) {
    const files = JSON.parse(run.files) as string[];
    const claimed = new Set(JSON.parse(run.claimed) as string[]);
    for (const file of files) {
      if (claimed.has(file)) continue;
      const audit = firstExternal.get(file, run.at - CONSOLIDATION_LEAD_MS) as { id: string; createdAt: number } | undefined;
      if (!audit) continue;
      if (!pluginWriteBetween.get(file, run.at, audit.createdAt)) {
        relabel.run(run.id, audit.id);
        claimedAudits.push(audit.id);
      }
      claimed.add(file);
    }
    saveClaimed.run(JSON.stringify([...claimed]), run.id);
  }
  return claimedAudits;
}
