// Rows of the plugin-log importer beyond turns, decisions and audits (migration 0110): failed gate
// runs, decision outcomes, replay detection of log lines, and consolidation runs.
import type { DB } from '../db/connection';
import { setDecisionOutcome } from '../db/repositories/recorder';
import {
  findFirstUnexplainedExternalWrite,
  findTranscriptTurn,
  insertConsolidationRunIfNew,
  insertGateFailureIfNew,
  listUnfinishedConsolidationRuns,
  markPluginLogEvent,
  pluginWroteFileBetween,
  relabelAsConsolidation,
  saveConsolidationClaimed,
} from '../db/repositories/pluginLogs';
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
  constructor(readonly db: DB) {}

  /** False when the line was applied before (the same line in a copied, renamed or re-read log). */
  markEvent(id: string): boolean {
    return markPluginLogEvent(this.db, id);
  }

  insertFailure(row: GateFailureRow): boolean {
    return insertGateFailureIfNew(this.db, row);
  }

  setOutcome(decisionId: string, outcome: string): void {
    setDecisionOutcome(this.db, decisionId, outcome);
  }

  /** Only turns another source made (OpenClaw transcripts, the recorder): never a snapshot of these logs. */
  transcriptTurn(sessionId: string, from: number, to: number, userContent: string, agentContent: string, at: number): string | undefined {
    return findTranscriptTurn(this.db, { session: sessionId, from, to, user: userContent, reply: agentContent, at });
  }

  insertConsolidationRun(id: string, at: number, files: MemoryFileName[], sourceFile: string): boolean {
    return insertConsolidationRunIfNew(this.db, id, at, JSON.stringify(files), sourceFile);
  }
}

/**
 * Relabels the external changes that a consolidation run made: for each file it named, the first
 * external write recorded at or after the run, provided no plugin write of that file came between
 * (then the external change mixes several writers and stays external). Returns the audits claimed.
 */
export function claimConsolidationWrites(db: DB): string[] {
  const runs = listUnfinishedConsolidationRuns(db);
  if (!runs.length) return [];
  const claimedAudits: string[] = [];
  for (const run of runs) {
    const files = JSON.parse(run.files) as string[];
    const claimed = new Set(JSON.parse(run.claimed) as string[]);
    for (const file of files) {
      if (claimed.has(file)) continue;
      const audit = findFirstUnexplainedExternalWrite(db, file, run.at - CONSOLIDATION_LEAD_MS);
      if (!audit) continue;
      if (!pluginWroteFileBetween(db, file, run.at, audit.createdAt)) {
        relabelAsConsolidation(db, audit.id, run.id);
        claimedAudits.push(audit.id);
      }
      claimed.add(file);
    }
    saveConsolidationClaimed(db, run.id, JSON.stringify([...claimed]));
  }
  return claimedAudits;
}
