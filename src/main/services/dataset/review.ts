// Review: list (keyset pages), show, approve / reject / flag / edit, PII span decisions, and undo.
// Every action is saved at once with the state it replaced (dataset_annotation_events), so the last
// action can be undone after a reload or a restart.
import { ANNOTATION_STATUSES, SAMPLE_TYPES, type AnnotationStatus, type SampleType } from '../../../shared/domain';
import { AppError } from '../../../shared/errors';
import { writeTx } from '../../db/connection';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { resolveDatasetConfig, type DatasetCollectionConfig, type DatasetCollectionConfigInput } from './config';
import { sampleTexts } from './dedupe';
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

const encodeCursor = (createdAt: number, id: string) => Buffer.from(`${createdAt}:${id}`).toString('base64url');
function decodeCursor(cursor: string): { createdAt: number; id: string } {
  const raw = Buffer.from(cursor, 'base64url').toString();
  const i = raw.indexOf(':');
  const createdAt = Number(raw.slice(0, i));
  if (i < 1 || !Number.isFinite(createdAt)) throw new AppError('Invalid', 'listSamples: cursor is not one this service returned');
  return { createdAt, id: raw.slice(i + 1) };
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
    const c = decodeCursor(input.cursor);
    where.push('(created_at < @cAt OR (created_at = @cAt AND id < @cId))');
    params.cAt = c.createdAt;
    params.cId = c.id;
  }
  const rows = ctx.db
    .prepare(`SELECT ${SAMPLE_COLUMNS} FROM dataset_samples WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT @limit`)
    .all(params) as SampleRow[];
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return { items: page.map(sampleFromRow), nextCursor: more && last ? encodeCursor(last.created_at, last.id) : null };
}

export function getSample(ctx: ServiceContext, sampleId: string): DatasetSample {
  const row = ctx.db.prepare(`SELECT ${SAMPLE_COLUMNS} FROM dataset_samples WHERE id = ?`).get(sampleId) as SampleRow | undefined;
  if (!row) throw new AppError('NotFound', `dataset sample ${sampleId} not found`);
  return sampleFromRow(row);
}

export type ReviewAction = 'approve' | 'reject' | 'needs_review' | 'edit';
const STATUS_FOR: Record<Exclude<ReviewAction, 'edit'>, AnnotationStatus> = {
  approve: 'approved',
  reject: 'rejected',
  needs_review: 'needs_review',
};

export interface ReviewInput {
  sampleId: string;
  action: ReviewAction;
  notes?: string;
  /** For edit: the new content, same sample type. */
  content?: SampleContent;
  config?: DatasetCollectionConfigInput | DatasetCollectionConfig;
}

function recordEvent(ctx: ServiceContext, row: SampleRow, action: string, notes: string | null, detail: unknown, withContent: boolean): void {
  ctx.db
    .prepare(
      `INSERT INTO dataset_annotation_events (sample_id, action, actor, notes, detail, prev_status, prev_annotated_by,
        prev_annotated_at, prev_notes, prev_content, prev_pii_spans, prev_pii_redacted_content, prev_contains_pii,
        prev_fingerprint, created_at)
       VALUES (@sampleId, @action, @actor, @notes, @detail, @status, @by, @at, @prevNotes, @content, @spans, @redacted,
        @containsPii, @fingerprint, @now)`,
    )
    .run({
      sampleId: row.id,
      action,
      actor: actorOf(ctx),
      notes,
      detail: detail === undefined ? null : JSON.stringify(detail),
      status: row.annotation_status,
      by: row.annotated_by,
      at: row.annotated_at,
      prevNotes: row.annotation_notes,
      content: withContent ? row.content : null,
      spans: row.pii_spans,
      redacted: row.pii_redacted_content,
      containsPii: row.contains_pii,
      fingerprint: withContent ? row.fingerprint : null,
      now: nowOf(ctx),
    });
}

function loadRow(ctx: ServiceContext, sampleId: string): SampleRow {
  if (typeof sampleId !== 'string' || !sampleId) throw new AppError('Invalid', 'sampleId: expected a sample id');
  const row = ctx.db.prepare(`SELECT ${SAMPLE_COLUMNS} FROM dataset_samples WHERE id = ?`).get(sampleId) as SampleRow | undefined;
  if (!row) throw new AppError('NotFound', `dataset sample ${sampleId} not found`);
  return row;
}

/** Approves, rejects, flags or edits one sample, saved immediately and undoable. */
export async function reviewSample(ctx: ServiceContext, input: ReviewInput): Promise<DatasetSample> {
  if (!['approve', 'reject', 'needs_review', 'edit'].includes(input.action)) {
    throw new AppError('Invalid', 'reviewSample: action must be approve, reject, needs_review or edit');
  }
  if (input.notes !== undefined && typeof input.notes !== 'string') throw new AppError('Invalid', 'reviewSample: notes must be text');
  const now = nowOf(ctx);
  if (input.action === 'edit') {
    const current = loadRow(ctx, input.sampleId);
    const content = input.content as unknown;
    if (!content || typeof content !== 'object' || Array.isArray(content)) throw new AppError('Invalid', 'reviewSample: content must be an object for edit');
    if ((content as { type?: unknown }).type !== current.sample_type) {
      throw new AppError('Invalid', `reviewSample: content.type must stay ${current.sample_type}`);
    }
    const cfg = resolveDatasetConfig(input.config);
    const detect = cfg.privacyFiltering.enabled ? await loadPiiDetector() : null;
    const spans = detect ? scanContent(content, detect, { names: cfg.privacyFiltering.detectNames, redactPatterns: cfg.privacyFiltering.redactPatterns }) : [];
    const redacted = spans.length ? JSON.stringify(redactContent(content, spans).redacted) : null;
    writeTx(ctx.db, () => {
      const row = loadRow(ctx, input.sampleId);
      recordEvent(ctx, row, 'edit', input.notes ?? null, undefined, true);
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
          notes: input.notes ?? null,
        });
    });
    return getSample(ctx, input.sampleId);
  }
  const status = STATUS_FOR[input.action];
  writeTx(ctx.db, () => {
    const row = loadRow(ctx, input.sampleId);
    recordEvent(ctx, row, input.action, input.notes ?? null, { status }, false);
    ctx.db
      .prepare(
        `UPDATE dataset_samples SET annotation_status = @status, annotated_by = @by, annotated_at = @at,
          annotation_notes = coalesce(@notes, annotation_notes) WHERE id = @id`,
      )
      .run({ id: row.id, status, by: actorOf(ctx), at: now, notes: input.notes ?? null });
  });
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
    recordEvent(ctx, row, 'pii_decision', null, { spanId: span.id, accepted: input.accepted }, false);
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
}

interface EventRow {
  seq: number;
  sample_id: string;
  action: string;
  prev_status: AnnotationStatus;
  prev_annotated_by: string | null;
  prev_annotated_at: number | null;
  prev_notes: string | null;
  prev_content: string | null;
  prev_pii_spans: string | null;
  prev_pii_redacted_content: string | null;
  prev_contains_pii: number | null;
  prev_fingerprint: string | null;
}

/** Undoes the most recent review action not yet undone (repeatable: each call undoes one more). */
export function undoLastReview(ctx: ServiceContext): UndoResult {
  const ev = writeTx(ctx.db, () => {
    const e = ctx.db
      .prepare('SELECT * FROM dataset_annotation_events WHERE undone_at IS NULL ORDER BY seq DESC LIMIT 1')
      .get() as EventRow | undefined;
    if (!e) throw new AppError('NotFound', 'there is no review action to undo');
    ctx.db
      .prepare(
        `UPDATE dataset_samples SET annotation_status = @status, annotated_by = @by, annotated_at = @at, annotation_notes = @notes,
          content = coalesce(@content, content), fingerprint = coalesce(@fingerprint, fingerprint),
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
        restorePii: e.action === 'edit' || e.action === 'pii_decision' ? 1 : 0,
        spans: e.prev_pii_spans,
        redacted: e.prev_pii_redacted_content,
        containsPii: e.prev_contains_pii ?? 0,
      });
    ctx.db.prepare('UPDATE dataset_annotation_events SET undone_at = ? WHERE seq = ?').run(nowOf(ctx), e.seq);
    return e;
  });
  return { sampleId: ev.sample_id, action: ev.action, sample: getSample(ctx, ev.sample_id) };
}
