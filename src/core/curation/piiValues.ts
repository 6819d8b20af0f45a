// PII review at scale: one decision per value (redact or keep) for a session, the workspace or
// everywhere, instead of one per span. A decision is applied at once to every sample in its scope
// (so review and export agree), remembers what each span was so it can be undone, and is also
// applied by the export to samples collected after it was made.
import fs from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { normalizePiiValue, PII_SCOPES, type PiiScope, type PiiValue } from '../../shared/contract/curation';
import { AppError } from '../../shared/errors';
import { defaultStateDir } from '../lifecycle/stateDir';
import { writeTx } from '../db/connection';
import {
  findValueDecision,
  insertValueDecision,
  insertValueDecisionSample,
  listActiveValueRules,
  listSamplesWithSpanText,
  listSpanUses,
  listValueDecisions,
  listValueDecisionSamples,
  markValueDecisionUndone,
  updateSampleSpans,
  type SampleSpansRow as SpanRow,
  type ValueDecisionRow,
} from '../db/repositories/piiValues';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { redactContent, type StoredPiiSpan } from '../dataset/privacy';

export { PII_SCOPES, type PiiScope };
export type PiiValueDecision = 'redact' | 'keep';

export const normalizeValue = normalizePiiValue;

export interface ValueRule {
  value: string;
  scope: PiiScope;
  sessionId: string | null;
  decision: PiiValueDecision;
  createdAt: number;
}

// ---- rules that apply everywhere live outside any workspace ----
const globalFile = () => path.join(defaultStateDir(), 'pii-value-decisions.json');

function readGlobalRules(): ValueRule[] {
  try {
    const parsed = JSON.parse(fs.readFileSync(globalFile(), 'utf8')) as unknown;
    return Array.isArray(parsed)
      ? (parsed as ValueRule[]).filter((r) => typeof r?.value === 'string' && (r.decision === 'redact' || r.decision === 'keep'))
      : [];
  } catch {
    return [];
  }
}

function writeGlobalRules(rules: ValueRule[]): void {
  fs.mkdirSync(path.dirname(globalFile()), { recursive: true });
  writeFileAtomic.sync(globalFile(), `${JSON.stringify(rules, null, 2)}\n`);
}

/**
 * Active rules, each with the time after which a sample is not yet covered by it: a decision made in
 * this workspace was applied to every sample that existed then (later per-span choices on those stand),
 * so it only adds to samples collected afterwards; a global decision made in another workspace covers all.
 */
export function loadValueRules(ctx: Pick<ServiceContext, 'db'>): (ValueRule & { appliesAfter: number })[] {
  const local: ValueRule[] = listActiveValueRules(ctx.db);
  const madeHere = new Set(local.map((r) => `${normalizeValue(r.value)}\u0000${r.createdAt}`));
  const foreign = readGlobalRules().filter((r) => !madeHere.has(`${normalizeValue(r.value)}\u0000${r.createdAt}`));
  return [...local.map((r) => ({ ...r, appliesAfter: r.createdAt })), ...foreign.map((r) => ({ ...r, appliesAfter: 0 }))];
}

const SCOPE_RANK: Record<PiiScope, number> = { session: 3, workspace: 2, global: 1 };

/**
 * The spans of one sample with the value rules applied: the narrowest matching scope wins, then the
 * latest decision. Returns null when no rule changes anything (the stored redaction stands).
 */
export function applyValueRules(
  spans: StoredPiiSpan[],
  sample: { sessionId: string; createdAt: number },
  rules: (ValueRule & { appliesAfter?: number })[],
): StoredPiiSpan[] | null {
  if (!rules.length || !spans.length) return null;
  const best = new Map<string, ValueRule>();
  for (const r of rules) {
    if (r.scope === 'session' && r.sessionId !== sample.sessionId) continue;
    if (r.appliesAfter !== undefined && sample.createdAt <= r.appliesAfter) continue;
    const key = normalizeValue(r.value);
    const cur = best.get(key);
    if (
      !cur ||
      SCOPE_RANK[r.scope] > SCOPE_RANK[cur.scope] ||
      (SCOPE_RANK[r.scope] === SCOPE_RANK[cur.scope] && r.createdAt >= cur.createdAt)
    )
      best.set(key, r);
  }
  let changed = false;
  const out = spans.map((s) => {
    const rule = best.get(normalizeValue(s.value));
    const accepted = rule ? rule.decision === 'redact' : s.accepted;
    if (accepted === s.accepted) return s;
    changed = true;
    return { ...s, accepted };
  });
  return changed ? out : null;
}

/** Samples in scope that hold the value, with their spans parsed. */
function samplesWithValue(
  ctx: ServiceContext,
  value: string,
  scope: PiiScope,
  sessionId: string | null,
): { row: SpanRow; spans: StoredPiiSpan[] }[] {
  const key = normalizeValue(value);
  // A cheap prefilter on the JSON text; the exact match is made on the parsed spans.
  const needle = JSON.stringify(key).slice(1, -1);
  const rows = listSamplesWithSpanText(ctx.db, needle, scope === 'session' ? sessionId : null);
  return rows
    .map((row) => ({ row, spans: JSON.parse(row.pii_spans) as StoredPiiSpan[] }))
    .filter((x) => x.spans.some((s) => normalizeValue(s.value) === key));
}

/** A distinct value with the samples holding it (in the session given, and in the whole workspace). */

/** Every distinct PII value of the workspace (or a session) with how many samples hold it. */
export function listPiiValues(ctx: ServiceContext, input: { sessionId?: string; limit?: number } = {}): PiiValue[] {
  const rows = listSpanUses(ctx.db);
  const byValue = new Map<
    string,
    { value: string; type: string; all: Set<string>; inSession: Set<string>; spans: number; redacted: number }
  >();
  for (const r of rows) {
    if (typeof r.value !== 'string') continue;
    const key = normalizeValue(r.value);
    const v = byValue.get(key) ?? { value: r.value, type: r.type, all: new Set(), inSession: new Set(), spans: 0, redacted: 0 };
    v.all.add(r.sampleId);
    if (input.sessionId && r.sessionId === input.sessionId) v.inSession.add(r.sampleId);
    v.spans++;
    if (r.accepted) v.redacted++;
    byValue.set(key, v);
  }
  return [...byValue.values()]
    .filter((v) => !input.sessionId || v.inSession.size > 0)
    .map((v) => ({
      value: v.value,
      type: v.type,
      sessionSamples: input.sessionId ? v.inSession.size : null,
      workspaceSamples: v.all.size,
      spans: v.spans,
      redacted: v.redacted,
    }))
    .sort((a, b) => b.workspaceSamples - a.workspaceSamples || a.value.localeCompare(b.value))
    .slice(0, input.limit ?? 500);
}

function saveSpans(ctx: ServiceContext, row: SpanRow, spans: StoredPiiSpan[]): void {
  const anyAccepted = spans.some((s) => s.accepted);
  const redacted = anyAccepted ? JSON.stringify(redactContent(JSON.parse(row.content), spans).redacted) : null;
  updateSampleSpans(ctx.db, row.id, JSON.stringify(spans), redacted, anyAccepted);
}

export interface DecideValueInput {
  value: string;
  decision: PiiValueDecision;
  scope: PiiScope;
  /** Required for scope session. */
  sessionId?: string;
  /** Count only: how many samples and spans the decision would cover. */
  dryRun?: boolean;
}

export type { ValueDecisionRow };

export function decidePiiValue(ctx: ServiceContext, input: DecideValueInput): ValueDecisionRow & { dryRun: boolean } {
  if (typeof input.value !== 'string' || !input.value.trim()) throw new AppError('Invalid', 'PII value decision: value is required');
  if (!PII_SCOPES.includes(input.scope)) throw new AppError('Invalid', `PII value decision: scope must be one of ${PII_SCOPES.join(', ')}`);
  if (input.decision !== 'redact' && input.decision !== 'keep')
    throw new AppError('Invalid', 'PII value decision: decision must be redact or keep');
  const sessionId = input.scope === 'session' ? (input.sessionId ?? null) : null;
  if (input.scope === 'session' && !sessionId) throw new AppError('Invalid', 'PII value decision: a session decision needs sessionId');
  const key = normalizeValue(input.value);
  const now = nowOf(ctx);
  return writeTx(ctx.db, () => {
    const hits = samplesWithValue(ctx, input.value, input.scope, sessionId);
    const spanCount = hits.reduce((n, h) => n + h.spans.filter((s) => normalizeValue(s.value) === key).length, 0);
    const base = {
      value: input.value,
      scope: input.scope,
      sessionId,
      decision: input.decision,
      actor: actorOf(ctx),
      samples: hits.length,
      spans: spanCount,
      createdAt: now,
      undoneAt: null,
      undoneBy: null,
    };
    if (input.dryRun) return { id: 0, ...base, dryRun: true };
    const id = insertValueDecision(ctx.db, base);
    const accepted = input.decision === 'redact';
    for (const { row, spans } of hits) {
      const prev: Record<string, boolean> = {};
      const next = spans.map((s) => {
        if (normalizeValue(s.value) !== key) return s;
        prev[s.id] = s.accepted;
        return { ...s, accepted };
      });
      insertValueDecisionSample(ctx.db, id, row.id, JSON.stringify(prev));
      saveSpans(ctx, row, next);
    }
    if (input.scope === 'global')
      writeGlobalRules([
        ...readGlobalRules().filter((r) => normalizeValue(r.value) !== key),
        { value: input.value, scope: 'global', sessionId: null, decision: input.decision, createdAt: now },
      ]);
    return { id, ...base, dryRun: false };
  });
}

/** Takes a value decision back: every span it changed returns to what it was before. */
export function undoPiiValueDecision(ctx: ServiceContext, id: number): ValueDecisionRow {
  return writeTx(ctx.db, () => {
    const d = findValueDecision(ctx.db, id);
    if (!d) throw new AppError('NotFound', `PII value decision ${id} not found`);
    if (d.undoneAt != null) throw new AppError('Conflict', `PII value decision ${id} was already undone`);
    const members = listValueDecisionSamples(ctx.db, id);
    for (const m of members) {
      const prev = JSON.parse(m.prev_accepted) as Record<string, boolean>;
      const spans = (m.pii_spans ? (JSON.parse(m.pii_spans) as StoredPiiSpan[]) : []).map((s) =>
        s.id in prev ? { ...s, accepted: prev[s.id] ?? s.accepted } : s,
      );
      saveSpans(ctx, m, spans);
    }
    markValueDecisionUndone(ctx.db, id, nowOf(ctx), actorOf(ctx));
    if (d.scope === 'global') writeGlobalRules(readGlobalRules().filter((r) => normalizeValue(r.value) !== normalizeValue(d.value)));
    return findValueDecision(ctx.db, id)!;
  });
}

export function listPiiValueDecisions(ctx: ServiceContext, limit = 100): ValueDecisionRow[] {
  return listValueDecisions(ctx.db, limit);
}

/** A stored sample row with the value rules applied to its spans and redaction (the export's view of it). */
export function rowWithValueRules<
  R extends {
    session_id: string;
    created_at: number;
    content: string;
    pii_spans: string | null;
    pii_redacted_content: string | null;
    contains_pii: number;
  },
>(row: R, rules: (ValueRule & { appliesAfter?: number })[]): R {
  if (!rules.length || !row.pii_spans) return row;
  const spans = applyValueRules(
    JSON.parse(row.pii_spans) as StoredPiiSpan[],
    { sessionId: row.session_id, createdAt: row.created_at },
    rules,
  );
  if (!spans) return row;
  const anyAccepted = spans.some((s) => s.accepted);
  return {
    ...row,
    pii_spans: JSON.stringify(spans),
    pii_redacted_content: anyAccepted ? JSON.stringify(redactContent(JSON.parse(row.content), spans).redacted) : null,
    contains_pii: anyAccepted ? 1 : 0,
  };
}
