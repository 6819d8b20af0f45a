// Review: list (keyset pages), show, approve / reject / flag / edit, PII span decisions, and undo.
// Every action is saved at once with the state it replaced (dataset_annotation_events), so the last
// action can be undone after a reload or a restart.
import { ANNOTATION_STATUSES, SAMPLE_TYPES, type AnnotationStatus, type SampleType } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { decodeCursor, encodeCursor } from '../db/paging';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { resolveDatasetConfig, type DatasetCollectionConfig, type DatasetCollectionConfigInput } from './config';
import { sampleTexts } from './dedupe';
import { validateSampleContent } from './sampleSchema';
import { loadPiiDetector, redactContent, scanContent, type StoredPiiSpan } from './privacy';
import { fingerprint } from './similarity';
import { SAMPLE_COLUMNS, sampleFromRow, type DatasetSample, type SampleContent, type SampleRow } from './types';

export interface ListSamplesInput {
  status?: AnnotationStatus;
  type?: SampleType;
  qualityAbove?: number;
  needsReview?: boolean;
  sessionId?: string;
  limit?: number;
  /** Opaque cursor from the previous page's nextCursor. */
  cursor?: string;
}

export interface SamplePage {
  items: DatasetSample[];
  nextCursor: string | null;
}

/** Newest first, paged by (created_at, id); samples of excluded sessions are hidden. */
export function listSamples(ctx: ServiceContext, input: ListSamplesInput = {}): SamplePage {
  const limit = input.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new AppError('Invalid', 'listSamples: limit must be an integer from 1 to 1000');
  if (input.status && !ANNOTATION_STATUSES.includes(input.status)) {
    throw new AppError('Invalid', `listSamples: status must be one of ${ANNOTATION_STATUSES.join(', ')}`);
  }
  if (input.type && !SAMPLE_TYPES.includes(input.type)) throw new AppError('Invalid', `listSamples: type must be one of ${SAMPLE_TYPES.join(', ')}`);
  if (input.qualityAbove !== undefined && !(input.qualityAbove >= 0 && input.qualityAbove <= 1)) {
    throw new AppError('Invalid', 'listSamples: qualityAbove must be between 0 and 1');
  }
  const where = ['session_id NOT IN (SELECT session_id FROM excluded_sessions)'];
  const params: Record<string, unknown> = { limit: limit + 1 };
  const status = input.needsReview ? 'needs_review' : input.status;
  if (status) {
    where.push('annotation_status = @status');
    params.status = status;
  }
  if (input.type) {
    where.push('sample_type = @type');
    params.type = input.type;
  }
  if (input.qualityAbove !== undefined) {
    where.push('quality_score >= @quality');
    params.quality = input.qualityAbove;
  }
  if (input.sessionId) {
    where.push('session_id = @session');
    params.session = input.sessionId;
  }
  if (input.cursor) {
    const [cAt, cId] = decodeCursor(input.cursor, ['number', 'string']) ?? [];
    where.push('(created_at < @cAt OR (created_at = @cAt AND id < @cId))');
    params.cAt = cAt;
    params.cId = cId;
  }
  const rows = ctx.db
    .prepare(`SELECT ${SAMPLE_COLUMNS} FROM dataset_samples WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT @limit`)
    .all(params) as SampleRow[];
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return { items: page.map(sampleFromRow), nextCursor: more && last ? encodeCursor([last.created_at, last.id]) : null };
}

export function getSample(ctx: ServiceContext, sampleId: string): DatasetSample {
  const row = ctx.db.prepare(`SELECT ${SAMPLE_COLUMNS} FROM dataset_samples WHERE id = ?`).get(sampleId) as SampleRow | undefined;
  if (!row) throw new AppError('NotFound', `dataset sample ${sampleId} not found`);
  return sampleFromRow(row);
}

export type ReviewAction = 'approve' | 'reject' | 'needs_review' | 'edit';
export type StatusAction = Exclude<ReviewAction, 'edit'>;
export const STATUS_FOR: Record<StatusAction, AnnotationStatus> = {
  approve: 'approved',
  reject: 'rejected',
  needs_review: 'needs_review',
};

export interface ReviewInput {
  sampleId: string;
  action: ReviewAction;
  notes?: string;
  /** For reject: one of the workspace's reject reasons (or any short text). */
  reason?: string;
  /** For edit: the new content, same sample type. */
  content?: SampleContent;
  config?: DatasetCollectionConfigInput | DatasetCollectionConfig;
}

interface EventExtras {
  notes?: string | null;
  detail?: unknown;
  withContent?: boolean;
  batchId?: string | null;
  reason?: string | null;
}

function recordEvent(ctx: ServiceContext, row: SampleRow & { reject_reason?: string | null }, action: string, x: EventExtras = {}): void {
  ctx.db
    .prepare(
      `INSERT INTO dataset_annotation_events (sample_id, action, actor, notes, detail, prev_status, prev_annotated_by,
        prev_annotated_at, prev_notes, prev_content, prev_pii_spans, prev_pii_redacted_content, prev_contains_pii,
        prev_fingerprint, created_at, batch_id, reason, prev_reject_reason)
       VALUES (@sampleId, @action, @actor, @notes, @detail, @status, @by, @at, @prevNotes, @content, @spans, @redacted,
        @containsPii, @fingerprint, @now, @batchId, @reason, @prevReason)`,
    )
    .run({
      sampleId: row.id,
      action,
      actor: actorOf(ctx),
      notes: x.notes ?? null,
      detail: x.detail === undefined ? null : JSON.stringify(x.detail),
      status: row.annotation_status,
      by: row.annotated_by,
      at: row.annotated_at,
      prevNotes: row.annotation_notes,
      content: x.withContent ? row.content : null,
      spans: row.pii_spans,
      redacted: row.pii_redacted_content,
      containsPii: row.contains_pii,
      fingerprint: x.withContent ? row.fingerprint : null,
      now: nowOf(ctx),
      batchId: x.batchId ?? null,
      reason: x.reason ?? null,
      prevReason: row.reject_reason ?? null,
    });
}

function loadRow(ctx: ServiceContext, sampleId: string): SampleRow & { reject_reason: string | null } {
  if (typeof sampleId !== 'string' || !sampleId) throw new AppError('Invalid', 'sampleId: expected a sample id');
  const row = ctx.db.prepare(`SELECT ${SAMPLE_COLUMNS}, reject_reason FROM dataset_samples WHERE id = ?`).get(sampleId) as
    | (SampleRow & { reject_reason: string | null })
    | undefined;
  if (!row) throw new AppError('NotFound', `dataset sample ${sampleId} not found`);
  return row;
}

function checkText(value: unknown, what: string, max: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new AppError('Invalid', `reviewSample: ${what} must be text`);
  if (value.length > max) throw new AppError('Invalid', `reviewSample: ${what} is longer than ${max} characters`);
  return value.trim() || undefined;
}

export interface StatusChange {
  action: StatusAction;
  notes?: string;
  reason?: string;
  batchId?: string;
}

/**
 * Labels one sample inside the caller's transaction. In a second pass (the sample was labelled by
 * another curator and sent for a second look) the label is recorded as the second opinion and the
 * sample keeps its first label until a lead adjudicates.
 */
export function applyStatusInTx(ctx: ServiceContext, sampleId: string, change: StatusChange): void {
  const row = loadRow(ctx, sampleId);
  const me = actorOf(ctx);
  const status = STATUS_FOR[change.action];
  const reason = change.action === 'reject' ? (change.reason ?? null) : null;
  const pass = ctx.db
    .prepare('SELECT first_curator FROM review_second_pass WHERE sample_id = ? AND second_label IS NULL')
    .get(row.id) as { first_curator: string } | undefined;
  const secondPass = pass != null && pass.first_curator !== me;
  recordEvent(ctx, row, change.action, { notes: change.notes ?? null, detail: { status, secondPass }, batchId: change.batchId, reason });
  ctx.db.prepare('DELETE FROM review_reservations WHERE sample_id = ?').run(row.id);
  if (secondPass) {
    ctx.db
      .prepare('UPDATE review_second_pass SET second_curator = ?, second_label = ?, second_at = ? WHERE sample_id = ?')
      .run(me, status, nowOf(ctx), row.id);
    return;
  }
  ctx.db
    .prepare(
      `UPDATE dataset_samples SET annotation_status = @status, annotated_by = @by, annotated_at = @at,
        annotation_notes = coalesce(@notes, annotation_notes), reject_reason = @reason WHERE id = @id`,
    )
    .run({ id: row.id, status, by: me, at: nowOf(ctx), notes: change.notes ?? null, reason });
}

/** Approves, rejects, flags or edits one sample, saved immediately and undoable. */
export async function reviewSample(ctx: ServiceContext, input: ReviewInput): Promise<DatasetSample> {
  if (!['approve', 'reject', 'needs_review', 'edit'].includes(input.action)) {
    throw new AppError('Invalid', 'reviewSample: action must be approve, reject, needs_review or edit');
  }
  const notes = checkText(input.notes, 'notes', 5000);
  const reason = checkText(input.reason, 'reason', 200);
  if (reason && input.action !== 'reject') throw new AppError('Invalid', 'reviewSample: a reason goes with reject only');
  const now = nowOf(ctx);
  if (input.action === 'edit') {
    const current = loadRow(ctx, input.sampleId);
    const content = input.content as unknown;
    if (!content || typeof content !== 'object' || Array.isArray(content)) throw new AppError('Invalid', 'reviewSample: content must be an object for edit');
    if ((content as { type?: unknown }).type !== current.sample_type) {
      throw new AppError('Invalid', `reviewSample: content.type must stay ${current.sample_type}`);
    }
    validateSampleContent(current.sample_type, content);
    const cfg = resolveDatasetConfig(input.config);
    const detect = cfg.privacyFiltering.enabled ? await loadPiiDetector() : null;
    const spans = detect ? scanContent(content, detect, { names: cfg.privacyFiltering.detectNames, redactPatterns: cfg.privacyFiltering.redactPatterns }) : [];
    const redacted = spans.length ? JSON.stringify(redactContent(content, spans).redacted) : null;
    writeTx(ctx.db, () => {
      const row = loadRow(ctx, input.sampleId);
      recordEvent(ctx, row, 'edit', { notes: notes ?? null, withContent: true });
      ctx.db
        .prepare(
          `UPDATE dataset_samples SET content = @content, pii_spans = @spans, pii_redacted_content = @redacted,
            contains_pii = @containsPii, privacy_checked = @checked, fingerprint = @fp, annotated_by = @by, annotated_at = @at,
            annotation_notes = coalesce(@notes, annotation_notes) WHERE id = @id`,
        )
        .run({
          id: row.id,
          content: JSON.stringify(content),
          spans: spans.length ? JSON.stringify(spans) : null,
          redacted,
          containsPii: spans.length ? 1 : 0,
          checked: detect ? 1 : 0,
          fp: fingerprint([row.sample_type, ...sampleTexts(content)]),
          by: actorOf(ctx),
          at: now,
          notes: notes ?? null,
        });
    });
    return getSample(ctx, input.sampleId);
  }
  writeTx(ctx.db, () => applyStatusInTx(ctx, input.sampleId, { action: input.action as StatusAction, notes, reason }));
  return getSample(ctx, input.sampleId);
}

export interface PiiSpanDecisionInput {
  sampleId: string;
  spanId: string;
  /** true: the span is PII and is redacted; false: not PII, exported as written. */
  accepted: boolean;
}

/** Accepts or rejects one detected span and recomputes the redacted content. Undoable. */
export function setPiiSpanDecision(ctx: ServiceContext, input: PiiSpanDecisionInput): DatasetSample {
  if (typeof input.accepted !== 'boolean') throw new AppError('Invalid', 'setPiiSpanDecision: accepted must be true or false');
  writeTx(ctx.db, () => {
    const row = loadRow(ctx, input.sampleId);
    const spans = (row.pii_spans ? JSON.parse(row.pii_spans) : []) as StoredPiiSpan[];
    const span = spans.find((s) => s.id === input.spanId);
    if (!span) throw new AppError('NotFound', `sample ${row.id} has no PII span ${input.spanId}`);
    if (span.accepted === input.accepted) return;
    recordEvent(ctx, row, 'pii_decision', { detail: { spanId: span.id, accepted: input.accepted } });
    span.accepted = input.accepted;
    const anyAccepted = spans.some((s) => s.accepted);
    const redacted = anyAccepted ? JSON.stringify(redactContent(JSON.parse(row.content), spans).redacted) : null;
    ctx.db
      .prepare('UPDATE dataset_samples SET pii_spans = ?, pii_redacted_content = ?, contains_pii = ? WHERE id = ?')
      .run(JSON.stringify(spans), redacted, anyAccepted ? 1 : 0, row.id);
  });
  return getSample(ctx, input.sampleId);
}

export interface UndoResult {
  sampleId: string;
  action: string;
  sample: DatasetSample;
  /** How many samples the undo restored (more than one for a bulk action). */
  count: number;
}

interface EventRow {
  seq: number;
  sample_id: string;
  action: string;
  detail: string | null;
  batch_id: string | null;
  prev_status: AnnotationStatus;
  prev_annotated_by: string | null;
  prev_annotated_at: number | null;
  prev_notes: string | null;
  prev_content: string | null;
  prev_pii_spans: string | null;
  prev_pii_redacted_content: string | null;
  prev_contains_pii: number | null;
  prev_fingerprint: string | null;
  prev_reject_reason: string | null;
}

function restoreEvent(ctx: ServiceContext, e: EventRow): void {
  const detail = (e.detail ? JSON.parse(e.detail) : {}) as { secondPass?: boolean };
  if (detail.secondPass) {
    // A second opinion never changed the sample: taking it back reopens the second pass.
    ctx.db.prepare('UPDATE review_second_pass SET second_curator = NULL, second_label = NULL, second_at = NULL WHERE sample_id = ?').run(e.sample_id);
  } else {
    ctx.db
      .prepare(
        `UPDATE dataset_samples SET annotation_status = @status, annotated_by = @by, annotated_at = @at, annotation_notes = @notes,
          content = coalesce(@content, content), fingerprint = coalesce(@fingerprint, fingerprint), reject_reason = @reason,
          pii_spans = CASE WHEN @restorePii THEN @spans ELSE pii_spans END,
          pii_redacted_content = CASE WHEN @restorePii THEN @redacted ELSE pii_redacted_content END,
          contains_pii = CASE WHEN @restorePii THEN @containsPii ELSE contains_pii END
         WHERE id = @id`,
      )
      .run({
        id: e.sample_id,
        status: e.prev_status,
        by: e.prev_annotated_by,
        at: e.prev_annotated_at,
        notes: e.prev_notes,
        content: e.prev_content,
        fingerprint: e.prev_fingerprint,
        reason: e.prev_reject_reason,
        restorePii: e.action === 'edit' || e.action === 'pii_decision' ? 1 : 0,
        spans: e.prev_pii_spans,
        redacted: e.prev_pii_redacted_content,
        containsPii: e.prev_contains_pii ?? 0,
      });
  }
  ctx.db.prepare('UPDATE dataset_annotation_events SET undone_at = ? WHERE seq = ?').run(nowOf(ctx), e.seq);
}

/**
 * Undoes the acting curator's most recent review action not yet undone (repeatable: each call undoes
 * one more). A bulk action is one action: all its samples come back together.
 */
export function undoLastReview(ctx: ServiceContext): UndoResult {
  const events = writeTx(ctx.db, () => {
    const e = ctx.db
      .prepare('SELECT * FROM dataset_annotation_events WHERE undone_at IS NULL AND actor = ? ORDER BY seq DESC LIMIT 1')
      .get(actorOf(ctx)) as EventRow | undefined;
    if (!e) throw new AppError('NotFound', 'there is no review action to undo');
    const batch = e.batch_id
      ? (ctx.db.prepare('SELECT * FROM dataset_annotation_events WHERE batch_id = ? AND undone_at IS NULL ORDER BY seq DESC').all(e.batch_id) as EventRow[])
      : [e];
    for (const ev of batch) restoreEvent(ctx, ev);
    return batch;
  });
  const first = events[events.length - 1];
  return { sampleId: first.sample_id, action: first.action, sample: getSample(ctx, first.sample_id), count: events.length };
}

/** The latest open (not undone) review event of the acting curator: what undo would take back. */
export function lastOpenReviewSeq(ctx: ServiceContext): number | null {
  const row = ctx.db
    .prepare('SELECT seq FROM dataset_annotation_events WHERE undone_at IS NULL AND actor = ? ORDER BY seq DESC LIMIT 1')
    .get(actorOf(ctx)) as { seq: number } | undefined;
  return row?.seq ?? null;
}
