// PII decisions per value (pii_value_decisions) with the samples each changed and what their spans
// were before (pii_value_decision_samples), and the sample span reads and writes they need.
import type { PiiValueDecisionDto } from '../../../shared/contract/curation';
import type { DB } from '../connection';
import { stmt } from '../statements';

/** A value decision as stored (the contract's shape without the dry-run flag). */
export type ValueDecisionRow = Omit<PiiValueDecisionDto, 'dryRun'>;

export interface ActiveValueRuleRow {
  value: string;
  scope: ValueDecisionRow['scope'];
  sessionId: string | null;
  decision: 'redact' | 'keep';
  createdAt: number;
}

export function listActiveValueRules(db: DB): ActiveValueRuleRow[] {
  return stmt<ActiveValueRuleRow>(
    db,
    'SELECT value, scope, session_id AS sessionId, decision, created_at AS createdAt FROM pii_value_decisions WHERE undone_at IS NULL',
  ).all();
}

export interface SampleSpansRow {
  id: string;
  session_id: string;
  content: string;
  pii_spans: string;
}

/** Samples whose stored spans mention the needle (lower-cased JSON text), in one session or all. */
export function listSamplesWithSpanText(db: DB, needle: string, sessionId: string | null): SampleSpansRow[] {
  const sql = `SELECT id, session_id, content, pii_spans FROM dataset_samples
       WHERE pii_spans IS NOT NULL AND instr(lower(pii_spans), @needle) > 0 ${sessionId !== null ? 'AND session_id = @session' : ''}`;
  return stmt<SampleSpansRow>(db, sql).all({ needle, session: sessionId });
}

export interface SpanUseRow {
  value: string;
  type: string;
  sampleId: string;
  sessionId: string;
  accepted: number;
}

/** Every stored PII span of samples outside excluded sessions. */
export function listSpanUses(db: DB): SpanUseRow[] {
  return stmt<SpanUseRow>(
    db,
    `SELECT json_extract(j.value, '$.value') AS value, json_extract(j.value, '$.type') AS type, s.id AS sampleId, s.session_id AS sessionId,
         json_extract(j.value, '$.accepted') AS accepted
       FROM dataset_samples s, json_each(s.pii_spans) j
       WHERE s.pii_spans IS NOT NULL AND s.session_id NOT IN (SELECT session_id FROM excluded_sessions)`,
  ).all();
}

export function updateSampleSpans(db: DB, sampleId: string, spansJson: string, redactedContent: string | null, containsPii: boolean): void {
  stmt(db, 'UPDATE dataset_samples SET pii_spans = ?, pii_redacted_content = ?, contains_pii = ? WHERE id = ?').run(
    spansJson,
    redactedContent,
    containsPii ? 1 : 0,
    sampleId,
  );
}

export function insertValueDecision(db: DB, d: Omit<ValueDecisionRow, 'id' | 'undoneAt' | 'undoneBy'>): number {
  return Number(
    stmt(
      db,
      `INSERT INTO pii_value_decisions (value, scope, session_id, decision, actor, samples, spans, created_at)
           VALUES (@value, @scope, @sessionId, @decision, @actor, @samples, @spans, @createdAt)`,
    ).run({
      value: d.value,
      scope: d.scope,
      sessionId: d.sessionId,
      decision: d.decision,
      actor: d.actor,
      samples: d.samples,
      spans: d.spans,
      createdAt: d.createdAt,
    }).lastInsertRowid,
  );
}

export function insertValueDecisionSample(db: DB, decisionId: number, sampleId: string, prevAcceptedJson: string): void {
  stmt(db, 'INSERT INTO pii_value_decision_samples (decision_id, sample_id, prev_accepted) VALUES (?, ?, ?)').run(
    decisionId,
    sampleId,
    prevAcceptedJson,
  );
}

const DECISION_COLUMNS = `id, value, scope, session_id AS sessionId, decision, actor, samples, spans, created_at AS createdAt,
  undone_at AS undoneAt, undone_by AS undoneBy`;

export function findValueDecision(db: DB, id: number): ValueDecisionRow | undefined {
  return stmt<ValueDecisionRow>(db, `SELECT ${DECISION_COLUMNS} FROM pii_value_decisions WHERE id = ?`).get(id);
}

/** The samples a decision changed, with their spans now and the accepted flags before it. */
export function listValueDecisionSamples(db: DB, decisionId: number): Array<SampleSpansRow & { prev_accepted: string }> {
  return stmt<SampleSpansRow & { prev_accepted: string }>(
    db,
    `SELECT m.prev_accepted, s.id, s.session_id, s.content, s.pii_spans FROM pii_value_decision_samples m
         JOIN dataset_samples s ON s.id = m.sample_id WHERE m.decision_id = ?`,
  ).all(decisionId);
}

export function markValueDecisionUndone(db: DB, id: number, at: number, by: string): void {
  stmt(db, 'UPDATE pii_value_decisions SET undone_at = ?, undone_by = ? WHERE id = ?').run(at, by, id);
}

export function listValueDecisions(db: DB, limit: number): ValueDecisionRow[] {
  return stmt<ValueDecisionRow>(db, `SELECT ${DECISION_COLUMNS} FROM pii_value_decisions ORDER BY id DESC LIMIT ?`).all(limit);
}
