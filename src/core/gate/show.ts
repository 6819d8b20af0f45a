import type { AuditSource, AuditStatus, ConversationContextItem, ConversationTurn, MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { turnFromRow } from '../recorder/recorder';
import type { ServiceContext } from '../context';
import { DECISION_COLUMNS, contextOf, decisionFromRow, type DecisionListItem } from './list';
import { stmt } from '../db/statements';

export interface WriteOutcome {
  id: string;
  decisionId: string | null;
  targetFile: MemoryFileName;
  status: AuditStatus;
  source: AuditSource;
  reason: string | null;
  candidateFact: string | null;
  linesAdded: number | null;
  linesRemoved: number | null;
  linesModified: number | null;
  createdAt: number;
  diff?: string | null;
}

export interface DecisionDetail {
  decision: DecisionListItem & { rawResponse: string | null };
  turn: ConversationTurn;
  context: ConversationContextItem[];
  writes: WriteOutcome[];
}

const WRITE_COLUMNS = `id, decision_id AS decisionId, target_file AS targetFile, status, source, reason,
  candidate_fact AS candidateFact, lines_added AS linesAdded, lines_removed AS linesRemoved,
  lines_modified AS linesModified, created_at AS createdAt`;

export function writesOfDecision(ctx: ServiceContext, decisionId: string, withDiff = false): WriteOutcome[] {
  return stmt(
    ctx.db,
    `SELECT ${WRITE_COLUMNS}${withDiff ? ', diff' : ''} FROM write_guardian_audit WHERE decision_id = ? ORDER BY rowid`,
  ).all(decisionId) as WriteOutcome[];
}

/** Writes of several turns at once (one indexed probe per turn). */
export function writesOfTurns(ctx: ServiceContext, turnIds: string[]): WriteOutcome[] {
  if (!turnIds.length) return [];
  return stmt(
    ctx.db,
    `SELECT ${WRITE_COLUMNS}, turn_id AS turnId FROM write_guardian_audit
     WHERE turn_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, rowid`,
  ).all(JSON.stringify(turnIds)) as WriteOutcome[];
}

/** Resolves a full decision id, or a unique prefix of at least 6 characters (what a person copies from a table). */
export function resolveDecisionId(ctx: ServiceContext, idOrPrefix: string): string {
  if (typeof idOrPrefix !== 'string' || !idOrPrefix.trim()) throw new AppError('Invalid', 'id: expected a decision id');
  const id = idOrPrefix.trim().toUpperCase();
  if (stmt(ctx.db, 'SELECT 1 FROM memory_gate_decisions WHERE id = ?').get(id)) return id;
  if (id.length >= 6 && id.length < 26) {
    const hits = stmt(ctx.db, 'SELECT id FROM memory_gate_decisions WHERE id >= ? AND id < ? ORDER BY id LIMIT 2')
      .pluck()
      .all(id, `${id}\uffff`) as string[];
    if (hits.length === 1) return hits[0];
    if (hits.length > 1) throw new AppError('Invalid', `id: "${idOrPrefix}" matches several decisions; give more characters`);
  }
  throw new AppError('NotFound', `decision ${idOrPrefix} not found`);
}

/** One decision with its turn, the turn's full context window and every write outcome (with diffs). */
export function showDecision(ctx: ServiceContext, id: string, options: { withContext?: boolean } = {}): DecisionDetail {
  const resolved = resolveDecisionId(ctx, id);
  const row = stmt(
    ctx.db,
    `SELECT ${DECISION_COLUMNS}, d.raw_response FROM memory_gate_decisions d JOIN conversation_turns t ON t.id = d.turn_id WHERE d.id = ?`,
  ).get(resolved) as (Parameters<typeof decisionFromRow>[0] & { raw_response: string | null }) | undefined;
  if (!row) throw new AppError('NotFound', `decision ${id} not found`);
  const turnRow = stmt(ctx.db, 'SELECT * FROM conversation_turns WHERE id = ?').get(row.turn_id) as Parameters<typeof turnFromRow>[0];
  return {
    decision: { ...decisionFromRow(row), rawResponse: row.raw_response },
    turn: turnFromRow(turnRow),
    context: options.withContext === false ? [] : contextOf(ctx, row.turn_id),
    writes: writesOfDecision(ctx, resolved, true),
  };
}
