// Review: list (keyset pages), show, approve / reject / flag / edit, PII span decisions, and undo.
// Every action is saved at once with the state it replaced (dataset_annotation_events), so the last
// action can be undone after a reload or a restart.
import { ANNOTATION_STATUSES, SAMPLE_TYPES, type AnnotationStatus, type SampleType } from '../../shared/domain';
import type { ReviewAction } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { decodeCursor, encodeCursor } from '../db/paging';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { resolveDatasetConfig, type DatasetCollectionConfig, type DatasetCollectionConfigInput } from './config';
import { sampleTexts } from './dedupe';
import { validateSampleContent } from './sampleSchema';
import { loadPiiDetector, redactContent, scanContent, type StoredPiiSpan } from './privacy';
import { fingerprint } from './similarity';
import { sampleFromRow, type DatasetSample, type SampleContent } from './types';
import {
  findLastOpenEvent,
  insertAnnotationEvent,
  listOpenBatchEvents,
  markEventUndone,
  type AnnotationEventRow as EventRow,
} from '../db/repositories/annotationEvents';
import { updateSampleSpans } from '../db/repositories/piiValues';
import {
  clearSecondLabel,
  deleteReservationsOfSample,
  findOtherHolder,
  findSecondPassAwaitingLabel,
  setSecondLabel,
} from '../db/repositories/reviewPasses';
import {
  findSampleById,
  findSampleForReview,
  listSamplesPage,
  restoreSampleState,
  updateSampleContent,
  updateSampleStatus,
  type ReviewedSampleRow,
} from '../db/repositories/samples';

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
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new AppError('Invalid', 'listSamples: limit must be an integer from 1 to 1000');
  if (input.status && !ANNOTATION_STATUSES.includes(input.status)) {
    throw new AppError('Invalid', `listSamples: status must be one of ${ANNOTATION_STATUSES.join(', ')}`);
  }
  if (input.type && !SAMPLE_TYPES.includes(input.type))
    throw new AppError('Invalid', `listSamples: type must be one of ${SAMPLE_TYPES.join(', ')}`);
  if (input.qualityAbove !== undefined && !(input.qualityAbove >= 0 && input.qualityAbove <= 1)) {
    throw new AppError('Invalid', 'listSamples: qualityAbove must be between 0 and 1');
  }
  const status = input.needsReview ? 'needs_review' : input.status;
  const after = input.cursor ? decodeCursor(input.cursor, ['number', 'string']) : undefined;
  const rows = listSamplesPage(
    ctx.db,
    {
      status,
      type: input.type,
      qualityAbove: input.qualityAbove,
      sessionId: input.sessionId,
      after: after ? [after[0] as number, after[1] as string] : undefined,
    },
    limit + 1,
  );
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return { items: page.map(sampleFromRow), nextCursor: more && last ? encodeCursor([last.created_at, last.id]) : null };
}

export function getSample(ctx: ServiceContext, sampleId: string): DatasetSample {
  const row = findSampleById(ctx.db, sampleId);
  if (!row) throw new AppError('NotFound', `dataset sample ${sampleId} not found`);
  return sampleFromRow(row);
}

export type { ReviewAction };
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

function recordEvent(ctx: ServiceContext, row: ReviewedSampleRow, action: string, x: EventExtras = {}): void {
  insertAnnotationEvent(ctx.db, {
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

function loadRow(ctx: ServiceContext, sampleId: string): ReviewedSampleRow {
  if (typeof sampleId !== 'string' || !sampleId) throw new AppError('Invalid', 'sampleId: expected a sample id');
  const row = findSampleForReview(ctx.db, sampleId);
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
  const firstCurator = findSecondPassAwaitingLabel(ctx.db, row.id);
  const secondPass = firstCurator !== undefined && firstCurator !== me;
  recordEvent(ctx, row, change.action, { notes: change.notes ?? null, detail: { status, secondPass }, batchId: change.batchId, reason });
  deleteReservationsOfSample(ctx.db, row.id);
  if (secondPass) {
    setSecondLabel(ctx.db, row.id, me, status, nowOf(ctx));
    return;
  }
  updateSampleStatus(ctx.db, { id: row.id, status, by: me, at: nowOf(ctx), notes: change.notes ?? null, reason });
}

/**
 * One curator's review of one sample is refused while another curator holds it (has it on screen):
 * two curators are never both deciding the same sample. Bulk actions select only samples nobody else
 * holds, and a lead's adjudication settles a sample both curators have already labelled.
 */
function refuseIfHeldByOther(ctx: ServiceContext, sampleId: string): void {
  const hold = findOtherHolder(ctx.db, sampleId, actorOf(ctx), nowOf(ctx));
  if (!hold) return;
  const minutes = Math.max(1, Math.ceil((hold.expires_at - nowOf(ctx)) / 60_000));
  throw new AppError(
    'Conflict',
    `sample ${sampleId} is on ${hold.curator}'s screen (held for about ${minutes} more minute${minutes === 1 ? '' : 's'}); ` +
      'it comes back to the queue when they decide, skip or leave Review',
  );
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
    if (!content || typeof content !== 'object' || Array.isArray(content))
      throw new AppError('Invalid', 'reviewSample: content must be an object for edit');
    if ((content as { type?: unknown }).type !== current.sample_type) {
      throw new AppError('Invalid', `reviewSample: content.type must stay ${current.sample_type}`);
    }
    validateSampleContent(current.sample_type, content);
    const cfg = resolveDatasetConfig(input.config);
    const detect = cfg.privacyFiltering.enabled ? await loadPiiDetector() : null;
    const spans = detect
      ? scanContent(content, detect, { names: cfg.privacyFiltering.detectNames, redactPatterns: cfg.privacyFiltering.redactPatterns })
      : [];
    const redacted = spans.length ? JSON.stringify(redactContent(content, spans).redacted) : null;
    writeTx(ctx.db, () => {
      const row = loadRow(ctx, input.sampleId);
      refuseIfHeldByOther(ctx, row.id);
      recordEvent(ctx, row, 'edit', { notes: notes ?? null, withContent: true });
      updateSampleContent(ctx.db, {
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
  writeTx(ctx.db, () => {
    refuseIfHeldByOther(ctx, input.sampleId);
    applyStatusInTx(ctx, input.sampleId, { action: input.action as StatusAction, notes, reason });
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
    recordEvent(ctx, row, 'pii_decision', { detail: { spanId: span.id, accepted: input.accepted } });
    span.accepted = input.accepted;
    const anyAccepted = spans.some((s) => s.accepted);
    const redacted = anyAccepted ? JSON.stringify(redactContent(JSON.parse(row.content), spans).redacted) : null;
    updateSampleSpans(ctx.db, row.id, JSON.stringify(spans), redacted, anyAccepted);
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

function restoreEvent(ctx: ServiceContext, e: EventRow): void {
  const detail = (e.detail ? JSON.parse(e.detail) : {}) as { secondPass?: boolean };
  if (detail.secondPass) {
    // A second opinion never changed the sample: taking it back reopens the second pass.
    clearSecondLabel(ctx.db, e.sample_id);
  } else {
    restoreSampleState(ctx.db, {
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
  markEventUndone(ctx.db, e.seq, nowOf(ctx));
}

/**
 * Undoes the acting curator's most recent review action not yet undone (repeatable: each call undoes
 * one more). A bulk action is one action: all its samples come back together.
 */
export function undoLastReview(ctx: ServiceContext): UndoResult {
  const events = writeTx(ctx.db, () => {
    const e = findLastOpenEvent(ctx.db, actorOf(ctx));
    if (!e) throw new AppError('NotFound', 'there is no review action to undo');
    const batch: EventRow[] = e.batch_id ? listOpenBatchEvents(ctx.db, e.batch_id) : [e];
    for (const ev of batch) restoreEvent(ctx, ev);
    return batch;
  });
  const first = events[events.length - 1];
  if (!first) throw new AppError('Internal', 'an undo restored no review event');
  return { sampleId: first.sample_id, action: first.action, sample: getSample(ctx, first.sample_id), count: events.length };
}

/** The latest open (not undone) review event of the acting curator: what undo would take back. */
export function lastOpenReviewSeq(ctx: ServiceContext): number | null {
  return findLastOpenEvent(ctx.db, actorOf(ctx))?.seq ?? null;
}
