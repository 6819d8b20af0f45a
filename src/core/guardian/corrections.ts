// Behaviour corrections: the curator's verdict on what write_guardian should have done.
// Apply-to-future corrections are also exposed as normalized keyword patterns, so dataset
// collection can match later samples against them without re-parsing free text.
import { ulid } from 'ulid';
import type { CorrectionDto } from '../../shared/contract/guardian';
import type { MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { assertMemoryFileName } from '../files/memoryFiles';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { findCorrectionById, findUnlinkedRetry, insertCorrection, listCorrectionRows } from '../db/repositories/corrections';
import { findPreviousStatusOfRolledBack } from '../db/repositories/rollbacks';
import { getAuditRow } from './rows';

export interface CorrectWriteInput {
  auditId: string;
  status: 'written' | 'refused';
  fact?: string;
  file?: string;
  reason: string;
  applyToFuture?: boolean;
  pattern?: string;
  /** The retry that applied this correction, when there was one. */
  retryAuditId?: string;
  by?: string;
}

/** A behaviour correction as the API contract describes it. */
export type CorrectionRecord = CorrectionDto;

/** Records the curator's correction of one audited write. */
export function correctWrite(ctx: ServiceContext, input: CorrectWriteInput): CorrectionRecord {
  if (input.status !== 'written' && input.status !== 'refused')
    throw new AppError('Invalid', `status ${String(input.status)}: expected written or refused`);
  const reason = (input.reason ?? '').trim();
  if (!reason) throw new AppError('Invalid', 'reason: say why the decision was wrong (--reason "...")');
  const file = input.file ? assertMemoryFileName(input.file) : null;
  const fact = input.fact?.trim() || null;
  const pattern = input.pattern?.trim() || null;
  return writeTx(ctx.db, () => {
    const audit = getAuditRow(ctx.db, input.auditId);
    if (input.applyToFuture && !pattern && !fact && !audit.candidate_fact) {
      throw new AppError('Invalid', 'apply-to-future: give --pattern (or --fact) so later samples can be matched');
    }
    if (input.retryAuditId) getAuditRow(ctx.db, input.retryAuditId);
    // A correction recorded after the curator already retried the write belongs to that retry.
    const retryAuditId = input.retryAuditId ?? latestUnlinkedRetry(ctx, audit.id);
    const id = ulid(nowOf(ctx));
    insertCorrection(ctx.db, {
      id,
      auditId: audit.id,
      originalStatus: originalStatus(ctx, audit),
      originalCandidateFact: audit.candidate_fact,
      originalTargetFile: audit.target_file,
      correctedStatus: input.status,
      correctedCandidateFact: fact,
      correctedTargetFile: file,
      correctionReason: reason,
      applyToFuture: Boolean(input.applyToFuture),
      correctionPattern: pattern,
      correctedBy: input.by ?? actorOf(ctx),
      correctedAt: nowOf(ctx),
      retryAuditId,
    });
    const saved = findCorrectionById(ctx.db, id);
    if (!saved) throw new AppError('Internal', `correction ${id} was not saved`);
    return saved;
  });
}

/** What write_guardian did, before any curator action: a rolled-back write was 'written' (its rollback keeps that). */
function originalStatus(ctx: ServiceContext, audit: { id: string; status: string }): string {
  if (audit.status !== 'rolled_back') return audit.status;
  return findPreviousStatusOfRolledBack(ctx.db, audit.id) ?? audit.status;
}

/** The newest retry of this write that no correction is linked to yet. */
function latestUnlinkedRetry(ctx: ServiceContext, auditId: string): string | null {
  return findUnlinkedRetry(ctx.db, auditId) ?? null;
}

export function listCorrections(
  ctx: ServiceContext,
  input: { auditId?: string; applyToFuture?: boolean; limit?: number } = {},
): CorrectionRecord[] {
  return listCorrectionRows(ctx.db, { auditId: input.auditId, applyToFuture: input.applyToFuture, limit: input.limit ?? 1000 });
}

/** A correction in the form dataset collection matches later samples against. */
export interface FutureCorrection {
  id: string;
  auditId: string;
  /** The pattern text, normalized (NFKC, lower case, punctuation and extra spaces removed). */
  pattern: string;
  /** Keywords of the pattern: latin words and CJK character bigrams, deduplicated. */
  keywords: string[];
  /** The file the rule applies to: the corrected target, else the original; null when unknown. */
  targetFile: MemoryFileName | null;
  correctedStatus: 'written' | 'refused';
  correctedCandidateFact: string | null;
  originalCandidateFact: string | null;
  reason: string;
  correctedAt: number;
}

export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const STOPWORDS = new Set([
  'a',
  'an',
  'the',
  'and',
  'or',
  'of',
  'to',
  'in',
  'on',
  'at',
  'is',
  'are',
  'be',
  'for',
  'with',
  'that',
  'this',
  'it',
]);
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** Keywords of a text: latin words (2+ chars, no stopwords) and bigrams of CJK runs. */
export function keywordsOf(text: string): string[] {
  const out = new Set<string>();
  for (const token of normalizeText(text).split(' ')) {
    if (!token) continue;
    let run = '';
    const flush = () => {
      if (run.length === 1) out.add(run);
      for (let i = 0; i + 1 < run.length; i++) out.add(run.slice(i, i + 2));
      run = '';
    };
    let word = '';
    for (const ch of token) {
      if (CJK.test(ch)) {
        if (word.length >= 2 && !STOPWORDS.has(word)) out.add(word);
        word = '';
        run += ch;
      } else {
        flush();
        word += ch;
      }
    }
    flush();
    if (word.length >= 2 && !STOPWORDS.has(word)) out.add(word);
  }
  return [...out];
}

export function listFutureCorrections(ctx: ServiceContext): FutureCorrection[] {
  return listCorrections(ctx, { applyToFuture: true, limit: 100_000 }).map((c) => {
    const source = c.correctionPattern ?? c.originalCandidateFact ?? c.correctedCandidateFact ?? '';
    return {
      id: c.id,
      auditId: c.auditId,
      pattern: normalizeText(source),
      keywords: keywordsOf(source),
      targetFile: c.correctedTargetFile ?? ((c.originalTargetFile as MemoryFileName | null) || null),
      correctedStatus: c.correctedStatus,
      correctedCandidateFact: c.correctedCandidateFact,
      originalCandidateFact: c.originalCandidateFact,
      reason: c.correctionReason,
      correctedAt: c.correctedAt,
    };
  });
}

export interface CorrectionMatch {
  correction: FutureCorrection;
  /** Share of the correction's keywords found in the sample, 0..1. */
  score: number;
}

/**
 * Which apply-to-future corrections a later sample falls under: the share of a correction's
 * keywords present in the sample's text must reach minScore (default 0.6), and the target file,
 * when both are known, must agree. Best match first.
 */
export function matchFutureCorrections(
  corrections: FutureCorrection[],
  sample: { text: string; targetFile?: string | null },
  minScore = 0.6,
): CorrectionMatch[] {
  const have = new Set(keywordsOf(sample.text));
  const normalized = normalizeText(sample.text);
  const matches: CorrectionMatch[] = [];
  for (const c of corrections) {
    if (c.targetFile && sample.targetFile && c.targetFile !== sample.targetFile) continue;
    if (!c.keywords.length) continue;
    const score = normalized.includes(c.pattern) ? 1 : c.keywords.filter((k) => have.has(k)).length / c.keywords.length;
    if (score >= minScore) matches.push({ correction: c, score });
  }
  return matches.sort((a, b) => b.score - a.score);
}
