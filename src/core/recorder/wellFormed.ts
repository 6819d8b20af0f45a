// Hand-written checks of the recorder's common, well-formed input shapes. zod's safeParse was the
// biggest cost of recorder ingest after SQLite itself (it builds a fresh output object per call, with
// per-field bookkeeping); these checks read each field once. Each one accepts only a subset of what its
// zod schema accepts and answers the value zod would return for it, so the rows written do not change.
// Anything it declines (a bad value, or a rarely sent field such as metadata, whose record rules are
// subtle) goes to zod, so the error messages stay zod's.
// tests/db/recorder-validation.test.ts holds each check to its schema over many variants.
import { AUDIT_SOURCES, AUDIT_STATUSES, GATE_DECISIONS, MEMORY_FILES } from '../../shared/domain';
import type { contextItemInput, decisionInput, sessionInput, turnInput, writeInput } from './schemas';
import type { z } from 'zod';

type Loose = Record<string, unknown>;

/** zod's object test: any non-null, non-array object. */
const isObject = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);
/** `z.number().int().nonnegative()`: a finite safe integer, at least 0. */
const isMs = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isOptMs = (v: unknown) => v === undefined || isMs(v);
const isOptText = (v: unknown) => v === undefined || typeof v === 'string';
const isId = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isOptId = (v: unknown) => v === undefined || isId(v);
const isContent = (v: unknown) => v === undefined || v === null || typeof v === 'string';

const decisions = new Set<unknown>(GATE_DECISIONS);
const statuses = new Set<unknown>(AUDIT_STATUSES);
const sources = new Set<unknown>(AUDIT_SOURCES);
const files = new Set<unknown>(MEMORY_FILES);

export function wellFormedSession(v: unknown): z.output<typeof sessionInput> | undefined {
  if (!isObject(v) || v.metadata !== undefined) return undefined;
  const ok =
    isId(v.id) &&
    isId(v.channelId) &&
    isOptText(v.conversationTarget) &&
    isOptText(v.accountId) &&
    isMs(v.createdAt) &&
    isMs(v.lastActivityAt);
  return ok ? (v as z.output<typeof sessionInput>) : undefined;
}

function isMessage(v: unknown, withFrom: boolean): boolean {
  if (!isObject(v) || v.metadata !== undefined) return false;
  return isOptText(v.id) && typeof v.content === 'string' && (!withFrom || isOptText(v.from));
}

export function wellFormedTurn(v: unknown): z.output<typeof turnInput> | undefined {
  if (!isObject(v)) return undefined;
  const ok =
    isOptId(v.id) &&
    isId(v.sessionId) &&
    isOptMs(v.turnNumber) &&
    isMessage(v.userMessage, true) &&
    isMessage(v.agentReply, false) &&
    isMs(v.createdAt);
  return ok ? (v as z.output<typeof turnInput>) : undefined;
}

export function wellFormedContextItem(v: unknown): z.output<typeof contextItemInput> | undefined {
  if (!isObject(v)) return undefined;
  const ok = (v.role === 'user' || v.role === 'agent') && typeof v.message === 'string' && isMs(v.timestamp);
  return ok ? (v as z.output<typeof contextItemInput>) : undefined;
}

function isDecisionCall(v: unknown): boolean {
  if (!isObject(v)) return false;
  return isId(v.model) && isOptMs(v.latencyMs) && isOptMs(v.promptTokens) && isOptMs(v.completionTokens) && isOptText(v.rawResponse);
}

export function wellFormedDecision(v: unknown): z.output<typeof decisionInput> | undefined {
  if (!isObject(v)) return undefined;
  const ok =
    isOptId(v.id) &&
    isId(v.turnId) &&
    isId(v.sessionId) &&
    decisions.has(v.decision) &&
    typeof v.reason === 'string' &&
    isOptText(v.candidateFact) &&
    isDecisionCall(v.llmCall) &&
    isOptText(v.source) &&
    isMs(v.createdAt);
  return ok ? (v as z.output<typeof decisionInput>) : undefined;
}

function isWriteCall(v: unknown): boolean {
  if (v === undefined) return true;
  return isObject(v) && isOptText(v.model) && isOptMs(v.latencyMs) && isOptMs(v.agentSteps);
}

export function wellFormedWrite(v: unknown): z.output<typeof writeInput> | undefined {
  if (!isObject(v) || v.metadata !== undefined) return undefined;
  const source = v.source === undefined ? 'plugin' : v.source;
  const ok =
    isOptId(v.id) &&
    isOptId(v.decisionId) &&
    isOptId(v.turnId) &&
    isOptId(v.sessionId) &&
    files.has(v.targetFile) &&
    isOptText(v.candidateFact) &&
    isContent(v.before) &&
    isContent(v.after) &&
    statuses.has(v.status) &&
    isOptText(v.reason) &&
    isWriteCall(v.llmCall) &&
    sources.has(source) &&
    isOptText(v.relatedAuditId) &&
    isMs(v.createdAt) &&
    // the schema's refinement: a plugin write names its decision
    (source !== 'plugin' || v.decisionId !== undefined);
  if (!ok) return undefined;
  return (v.source === undefined ? { ...v, source } : v) as z.output<typeof writeInput>;
}
