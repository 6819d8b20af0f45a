// Seed 000's three quality factors, each computed from evidence stored in the workspace.
// The exact definitions are documented in docs/dataset.md; keep the two in step.
import type { QualityFactors } from '../../shared/contract';
import type { DatasetCollectionConfig } from './config';
import { normalizeText } from './similarity';

export type { QualityFactors };

/** Where a sample's label comes from, from strongest to weakest evidence. */
export type LabelEvidence =
  | 'curator_correction' // a curator corrected the write (behavior_corrections)
  | 'rollback' // a curator rolled the write back
  | 'guardian_refused' // write_guardian refused what memory_gate proposed
  | 'guardian_agreed' // memory_gate proposed, write_guardian wrote it
  | 'user_request' // the user later asked to remember something similar
  | 'gate_no_write'; // memory_gate said NO_WRITE and nothing contradicted it

export interface QualityInput {
  userMessage: string;
  agentMessage: string;
  conversationLength: number;
  reason: string;
  rawResponse?: string | null;
  fact?: string | null;
  /** The label says "write nothing": there is no fact to verify, which is the answer, not a gap. */
  labelIsNoWrite?: boolean;
  evidence: LabelEvidence;
  /** Feedback signal types found in the following user turns. */
  followingSignals: string[];
}

const HEDGES = /\b(?:maybe|might|perhaps|possibly|probably|not sure|unsure|unclear|I think|seems?)\b|可能|也许|或许|不确定|大概|似乎|好像/i;
const CJK_CHAR = /[\u3400-\u9fff\uf900-\ufaff]/;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/gu;

const clamp = (x: number) => Math.max(0, Math.min(1, x));
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Code points, letters or digits, CJK and Latin letters of a text, counted in one pass over its code units:
 * the counts of `[...text]`, LETTER_OR_DIGIT, /[\u3400-\u9fff\uf900-\ufaff]/g and /[A-Za-z]/g without the
 * arrays those build (tests/dataset/qualityCounts.test.ts compares the two).
 */
export function scriptCounts(text: string): { len: number; letters: number; cjk: number; latin: number } {
  let len = 0;
  let ascii = 0; // ASCII letters and digits: all that LETTER_OR_DIGIT matches among ASCII characters
  let cjk = 0;
  let latin = 0;
  let nonAscii = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    len++;
    if (c < 0x80) {
      if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) {
        latin++;
        ascii++;
      } else if (c >= 0x30 && c <= 0x39) ascii++;
      continue;
    }
    nonAscii = true;
    if ((c >= 0x3400 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff)) cjk++;
    // a surrogate pair is one code point, as the string iterator counts it
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  // Unicode letters and digits beyond ASCII need the property classes: counted by the pattern itself
  const letters = nonAscii ? (text.match(LETTER_OR_DIGIT) ?? []).length : ascii;
  return { len, letters, cjk, latin };
}

/** The user message's length and script scores (conversationClarity's part that depends on it alone). */
function messageScores(userMessage: string): { lengthScore: number; languageScore: number } {
  const text = userMessage.trim();
  const { len, letters, cjk, latin } = scriptCounts(text);
  const lengthScore = len < 4 ? 0.2 : len < 12 ? 0.6 : len <= 800 ? 1 : Math.max(0.4, 1 - (len - 800) / 4000);
  let languageScore = 1;
  if (len === 0 || letters / len < 0.5) languageScore = 0.5;
  else if (cjk + latin > 0 && Math.max(cjk, latin) / (cjk + latin) < 0.8) languageScore = 0.8;
  return { lengthScore, languageScore };
}

// The samples of one decision are scored one after another on the same user message and, mostly, the
// same fact: the last one's scores and units are kept (collection scored each sample's again).
let lastMessage: string | null = null;
let lastMessageScores = { lengthScore: 0, languageScore: 0 };
let lastFact: string | null = null;
let lastFactUnits: string[] = [];

/** Clarity of the user message memory_gate judged: length, one dominant script, a reply to it, no confusion after. */
export function conversationClarity(q: QualityInput): number {
  if (q.userMessage !== lastMessage) {
    lastMessageScores = messageScores(q.userMessage);
    lastMessage = q.userMessage;
  }
  const { lengthScore, languageScore } = lastMessageScores;
  const contextScore = q.agentMessage.trim() && q.conversationLength >= 2 ? 1 : 0.7;
  const confusion = q.followingSignals.includes('confusion') ? 0.7 : 1;
  return round3(clamp(lengthScore * languageScore * contextScore * confusion));
}

const EVIDENCE_BASE: Record<LabelEvidence, number> = {
  curator_correction: 1,
  rollback: 0.9,
  guardian_refused: 0.7,
  guardian_agreed: 0.75,
  user_request: 0.6,
  gate_no_write: 0.7,
};

/** How sure we are of the label: who confirmed it, the gate's reason, hedging, and what the user said next. */
export function decisionConfidence(q: QualityInput): number {
  let c = EVIDENCE_BASE[q.evidence];
  if (q.evidence === 'curator_correction') return 1;
  const reason = q.reason.trim();
  if (reason.length >= 20) c += 0.1;
  else if (!reason) c -= 0.2;
  if (HEDGES.test(reason) || (q.rawResponse && HEDGES.test(q.rawResponse))) c -= 0.2;
  const s = q.followingSignals;
  const objection = s.includes('reject') || s.includes('correction');
  if (q.evidence === 'guardian_agreed' || q.evidence === 'gate_no_write') {
    // an objection after an unconfirmed decision (a write, or a NO_WRITE) casts doubt on it
    if (objection) c -= 0.35;
    else if (s.includes('success')) c += 0.1;
  } else if (objection) {
    // the user objected to a write that was undone or refused: the negative label is confirmed
    c += 0.1;
  }
  return round3(clamp(c));
}

/** Light English stemming, so "prefers" in a fact is found as "prefer" in the conversation. */
function stem(word: string): string {
  if (word.length <= 4) return word;
  const m = /^(.{3,}?)(?:ing|ed|es|s|ly)$/.exec(word);
  return m?.[1] ?? word;
}

function contentUnits(text: string): string[] {
  const t = normalizeText(text);
  const units: string[] = [];
  for (const word of t.split(' ')) {
    if (!word) continue;
    // CJK_CHAR matches one BMP code unit, never half of a surrogate pair: testing the word is testing each character
    if (CJK_CHAR.test(word)) {
      // CJK has no spaces: character bigrams stand in for words
      const chars = [...word];
      if (chars.length === 1) units.push(word);
      for (let i = 0; i + 1 < chars.length; i++) units.push(chars[i]! + chars[i + 1]!);
    } else if (word.length > 2) {
      units.push(stem(word));
    }
  }
  return units;
}

// The samples of one decision share its conversation: normalize it once.
let lastRaw = '';
let lastNormalized = '';
function normalizedOnce(text: string): string {
  if (text !== lastRaw) {
    lastRaw = text;
    lastNormalized = normalizeText(text);
  }
  return lastNormalized;
}

/** Share of the fact's words (CJK: character bigrams) that occur in the conversation; 0.5 when there is no fact. */
export function factVerifiability(fact: string | null | undefined, conversationText: string): number {
  if (!fact || !fact.trim()) return 0.5;
  if (fact !== lastFact) {
    lastFactUnits = contentUnits(fact);
    lastFact = fact;
  }
  const units = lastFactUnits;
  if (!units.length) return 0.5;
  const hay = normalizedOnce(conversationText);
  let hits = 0;
  for (const u of units) if (hay.includes(u)) hits++;
  return round3(hits / units.length);
}

export function scoreQuality(
  q: QualityInput,
  conversationText: string,
  weights: DatasetCollectionConfig['qualityScoring']['weights'],
): { score: number; factors: QualityFactors } {
  const factors: QualityFactors = {
    conversationClarity: conversationClarity(q),
    decisionConfidence: decisionConfidence(q),
    factVerifiability: q.labelIsNoWrite ? 1 : factVerifiability(q.fact, conversationText),
  };
  const total = weights.conversationClarity + weights.decisionConfidence + weights.factVerifiability;
  const score =
    (factors.conversationClarity * weights.conversationClarity +
      factors.decisionConfidence * weights.decisionConfidence +
      factors.factVerifiability * weights.factVerifiability) /
    total;
  return { score: round3(clamp(score)), factors };
}
