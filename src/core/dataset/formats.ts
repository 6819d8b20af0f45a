// One sample -> one record per export format (formats.md). Pure functions; export.ts streams them.
import type { GateDecision } from '../../shared/domain';
import type { QualityFactors } from './quality';
import type { DatasetSample, Message, SampleContent, WriteGuardianSample } from './types';

export const GATE_INSTRUCTION =
  'Based on the following conversation, decide if this should be written to memory and which file it belongs to.';
export const GUARDIAN_INSTRUCTION =
  "Decide whether write_guardian should write this candidate fact into the target memory file, given the file's current content.";

/** The step a record trains, and the label it teaches (for balance reports and KTO). */
export type TrainedStep = 'memory_gate' | 'write_guardian';
export type TaskLabel = 'write' | 'no_write' | 'refuse' | 'skip';

export interface Task {
  step: TrainedStep;
  instruction: string;
  input: string;
  /** The trained target: the gate's decision, fact and reason, or the guardian's action. */
  output: string;
  label: TaskLabel;
  decision?: string;
  fact?: string;
  targetFile?: string;
}

// The texts below are joined by concatenation rather than an array and join(): every sample of a csv
// export builds a transcript and an answer, and the arrays were garbage (0.15-0.25 µs a call warm, more cold).

export function transcript(conversation: Message[]): string {
  let out = '';
  for (let i = 0; i < conversation.length; i++) {
    const m = conversation[i]!;
    out += `${i ? '\n' : ''}${m.role === 'user' ? 'User' : 'Agent'}: ${m.message}`;
  }
  return out;
}

export function gateOutput(decision: string, fact: string | undefined | null, reason: string | undefined | null): string {
  let out = `Decision: ${decision}`;
  if (fact && decision !== 'NO_WRITE') out += `\nFact: ${fact}`;
  if (reason) out += `\nReason: ${reason}`;
  return out;
}

const ACTION_WORD: Record<'written' | 'refused' | 'skipped', 'write' | 'refuse' | 'skip'> = {
  written: 'write',
  refused: 'refuse',
  skipped: 'skip',
};

/** write_guardian's answer: the action, the file, the fact when it differs, the reason, and the new content last. */
export function guardianOutput(a: {
  action: 'written' | 'refused' | 'skipped';
  targetFile: string;
  fact?: string;
  reason?: string;
  newContent?: string;
}): string {
  let out = `Action: ${ACTION_WORD[a.action]}\nTarget file: ${a.targetFile}`;
  if (a.fact) out += `\nFact: ${a.fact}`;
  if (a.reason) out += `\nReason: ${a.reason}`;
  if (a.action === 'written' && a.newContent !== undefined) out += `\nNew content:\n${a.newContent}`;
  return out;
}

export function guardianInput(fact: string, targetFile: string, currentContent: string): string {
  return `Candidate fact: ${fact}\nTarget file: ${targetFile}\nCurrent content:\n${currentContent}`;
}

const gateLabel = (decision: string): TaskLabel => (decision === 'NO_WRITE' ? 'no_write' : 'write');

/** The guardian's final action and output for a sample (a curator's correction wins over what it did). */
function guardianTarget(c: WriteGuardianSample): { action: 'written' | 'refused' | 'skipped'; output: string } {
  const corr = c.userCorrection;
  if (!corr) {
    return {
      action: c.decision,
      output: guardianOutput({ action: c.decision, targetFile: c.targetFile, reason: c.reason, newContent: c.newFileContent }),
    };
  }
  const targetFile = corr.correctedTargetFile ?? c.targetFile;
  const fact = corr.correctedFact && corr.correctedFact.trim() !== c.candidateFact.trim() ? corr.correctedFact : undefined;
  // the recorded new content is only the right answer when the correction kept the write as it was
  const keepsWrite = corr.correctedDecision === 'written' && c.decision === 'written' && !fact && targetFile === c.targetFile;
  return {
    action: corr.correctedDecision,
    output: guardianOutput({
      action: corr.correctedDecision,
      targetFile,
      fact,
      reason: corr.reason,
      newContent: keepsWrite ? c.newFileContent : undefined,
    }),
  };
}

/** The supervised task a sample teaches: what the model sees and what it should answer. */
export function taskOf(c: SampleContent): Task {
  switch (c.type) {
    case 'memory_gate_positive':
      return {
        step: 'memory_gate',
        instruction: GATE_INSTRUCTION,
        input: transcript(c.conversation),
        output: gateOutput(c.correctDecision, c.correctFact, c.reason),
        label: gateLabel(c.correctDecision),
        decision: c.correctDecision,
        fact: c.correctDecision === 'NO_WRITE' ? undefined : c.correctFact,
      };
    case 'memory_gate_negative':
      return {
        step: 'memory_gate',
        instruction: GATE_INSTRUCTION,
        input: transcript(c.conversation),
        output: gateOutput(c.correctDecision, c.correctFact, c.rejectionReason),
        label: gateLabel(c.correctDecision),
        decision: c.correctDecision,
        fact: c.correctDecision === 'NO_WRITE' ? undefined : c.correctFact,
      };
    case 'write_guardian_decision': {
      const t = guardianTarget(c);
      return {
        step: 'write_guardian',
        instruction: GUARDIAN_INSTRUCTION,
        input: guardianInput(c.candidateFact, c.targetFile, c.currentFileContent),
        output: t.output,
        label: ACTION_WORD[t.action],
        decision: ACTION_WORD[t.action],
        targetFile: c.userCorrection?.correctedTargetFile ?? c.targetFile,
      };
    }
    case 'annotated_turn': {
      const g = c.memoryGate;
      const out =
        g.correctedOutput ??
        (g.label === 'incorrect'
          ? {
              decision: 'NO_WRITE' as GateDecision,
              reason: c.writeGuardian.output.reason ?? 'The proposed write was refused or rolled back.',
            }
          : g.output);
      return {
        step: 'memory_gate',
        instruction: GATE_INSTRUCTION,
        input: transcript(c.context),
        output: gateOutput(out.decision, out.candidateFact, out.reason),
        label: gateLabel(out.decision),
        decision: out.decision,
        fact: out.decision === 'NO_WRITE' ? undefined : out.candidateFact,
      };
    }
  }
}

/**
 * A preference pair on the prompt of the step that was corrected: the gate's prompt for a gate
 * correction (another decision, fact or file), the guardian's prompt when a curator reversed its
 * action. Null when the sample holds no correction of its own step, or when chosen and rejected
 * would say the same thing (ignoring case and spacing).
 */
export function preferencePair(
  c: SampleContent,
  task?: Task,
): { step: TrainedStep; instruction: string; input: string; chosen: string; rejected: string } | null {
  let pair: { step: TrainedStep; instruction: string; input: string; chosen: string; rejected: string } | null = null;
  if (c.type === 'memory_gate_negative') {
    const t = task ?? taskOf(c);
    pair = {
      step: 'memory_gate',
      instruction: t.instruction,
      input: t.input,
      chosen: t.output,
      rejected: gateOutput(c.incorrectDecision, c.incorrectFact, c.originalReason),
    };
  } else if (c.type === 'write_guardian_decision' && c.userCorrection && c.userCorrection.correctedDecision !== c.decision) {
    const t = task ?? taskOf(c);
    const rejected = guardianOutput({ action: c.decision, targetFile: c.targetFile, reason: c.reason, newContent: c.newFileContent });
    pair = { step: 'write_guardian', instruction: t.instruction, input: t.input, chosen: t.output, rejected };
  }
  if (!pair) return null;
  return sameAnswer(pair.chosen, pair.rejected) ? null : pair;
}

const normalized = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
/** ASCII whitespace as \s matches it: tab, line feed, vertical tab, form feed, carriage return, space. */
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

/** Where the character after the one nextNormalized returned starts (a variable, not a pair allocated per character). */
let nextAt = 0;

/** The next character of s's normalized form from i (-1 at its end, 32 for a run of spaces); sets nextAt. */
function nextNormalized(s: string, i: number): number {
  if (i >= s.length) {
    nextAt = i;
    return -1;
  }
  const c = s.charCodeAt(i);
  if (!isSpace(c)) {
    nextAt = i + 1;
    return c >= 65 && c <= 90 ? c + 32 : c;
  }
  let j = i + 1;
  while (j < s.length && isSpace(s.charCodeAt(j))) j++;
  nextAt = j;
  // a run that goes on with a non-ASCII character may go on with Unicode spacing: the caller hands over
  if (j < s.length && s.charCodeAt(j) >= 0x80) return 0x80;
  return j < s.length ? 32 : -1;
}

/**
 * Whether two answers say the same thing ignoring case and spacing: normalized(a) === normalized(b). Both
 * are walked side by side and the walk stops at the first difference (a rejected guardian answer carries
 * the whole file it wrote); a non-ASCII character, whose case and spacing rules are Unicode's, hands the
 * pair to the string functions.
 */
export function sameAnswer(a: string, b: string): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && isSpace(a.charCodeAt(i))) i++;
  while (j < b.length && isSpace(b.charCodeAt(j))) j++;
  for (;;) {
    const ca = nextNormalized(a, i);
    i = nextAt;
    const cb = nextNormalized(b, j);
    j = nextAt;
    if (ca >= 0x80 || cb >= 0x80) return normalized(a) === normalized(b);
    if (ca !== cb) return false;
    if (ca === -1) return true;
  }
}

/** The record builders take the task when the caller has it already (taskOf builds the transcript). */
export function alpacaRecord(c: SampleContent, t: Task = taskOf(c)): { instruction: string; input: string; output: string } {
  return { instruction: t.instruction, input: t.input, output: t.output };
}

export interface ShareGptTurn {
  from: 'human' | 'gpt';
  value: string;
  memory_gate_decision?: string;
  candidate_fact?: string;
  write_guardian_action?: string;
  target_file?: string;
}

/**
 * ShareGPT as LLaMA-Factory reads it: the task instruction in the system column, the conversation
 * (or the guardian's input) as one human turn, and the decision or action as the trained gpt turn.
 * The seed's memory_gate_decision and candidate_fact stay on that turn as annotations (trainers drop them).
 */
export function sharegptRecord(c: SampleContent, t: Task = taskOf(c)): { system: string; conversations: ShareGptTurn[] } {
  const answer: ShareGptTurn = { from: 'gpt', value: t.output };
  if (t.step === 'memory_gate') {
    if (t.decision) answer.memory_gate_decision = t.decision;
    if (t.fact) answer.candidate_fact = t.fact;
  } else {
    if (t.decision) answer.write_guardian_action = t.decision;
    if (t.targetFile) answer.target_file = t.targetFile;
  }
  return { system: t.instruction, conversations: [{ from: 'human', value: t.input || '(empty)' }, answer] };
}

export interface OpenAiMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export function openaiRecord(c: SampleContent, t: Task = taskOf(c)): { messages: OpenAiMessage[] } {
  return {
    messages: [
      { role: 'system', content: t.instruction },
      { role: 'user', content: t.input || '(empty)' },
      { role: 'assistant', content: t.output },
    ],
  };
}

/** OpenAI preference fine-tuning: the corrected output is preferred over the original, on the corrected step's prompt. */
export function openaiDpoRecord(
  c: SampleContent,
  t?: Task,
): {
  input: { messages: OpenAiMessage[] };
  preferred_output: OpenAiMessage[];
  non_preferred_output: OpenAiMessage[];
} | null {
  const p = preferencePair(c, t);
  if (!p) return null;
  return {
    input: {
      messages: [
        { role: 'system', content: p.instruction },
        { role: 'user', content: p.input || '(empty)' },
      ],
    },
    preferred_output: [{ role: 'assistant', content: p.chosen }],
    non_preferred_output: [{ role: 'assistant', content: p.rejected }],
  };
}

/** LLaMA-Factory's preference dataset in Alpaca columns (dataset_info: ranking true, chosen/rejected). */
export function rankingRecord(c: SampleContent, t?: Task): { instruction: string; input: string; chosen: string; rejected: string } | null {
  const p = preferencePair(c, t);
  return p ? { instruction: p.instruction, input: p.input, chosen: p.chosen, rejected: p.rejected } : null;
}

export interface KtoRecord {
  prompt: string;
  completion: string;
  label: boolean;
}

/**
 * Unpaired preference (KTO, TRL's prompt/completion/label): the reviewed right answer is desirable;
 * the output the plugin actually gave, when a correction, rollback or refusal showed it wrong, is undesirable.
 */
export function ktoRecords(c: SampleContent, t: Task = taskOf(c)): KtoRecord[] {
  const prompt = `${t.instruction}\n${t.input}`;
  const out: KtoRecord[] = [{ prompt, completion: t.output, label: true }];
  const p = preferencePair(c, t);
  if (p) out.push({ prompt: `${p.instruction}\n${p.input}`, completion: p.rejected, label: false });
  return out;
}

/** The sample fields the raw record reads. */
export type RawRecordSample = Pick<
  DatasetSample,
  | 'id'
  | 'sampleType'
  | 'sessionId'
  | 'turnId'
  | 'decisionId'
  | 'auditId'
  | 'correctionId'
  | 'qualityScore'
  | 'qualityFactors'
  | 'annotationStatus'
  | 'labels'
  | 'feedbackSignals'
  | 'containsPii'
  | 'piiSpans'
  | 'fingerprint'
  | 'clusterId'
  | 'collectionStrategy'
  | 'createdAt'
>;

/** The whole sample record (raw JSONL): ids, type, labels, quality factors, and the (redacted) content. */
export function rawRecord(s: RawRecordSample, content: SampleContent, sessionId = s.sessionId): Record<string, unknown> {
  return {
    id: s.id,
    sampleType: s.sampleType,
    sessionId,
    turnId: s.turnId,
    decisionId: s.decisionId,
    auditId: s.auditId,
    correctionId: s.correctionId,
    content,
    qualityScore: s.qualityScore,
    qualityFactors: s.qualityFactors,
    annotationStatus: s.annotationStatus,
    labels: s.labels,
    // evidence text is the user's own words; types and confidences are enough for training filters
    feedbackSignals: s.feedbackSignals.map((f) => ({ type: f.type, confidence: f.confidence, turnId: f.turnId })),
    containsPii: s.containsPii,
    piiTypes: [...new Set(s.piiSpans.filter((p) => p.accepted).map((p) => p.type))],
    fingerprint: s.fingerprint,
    clusterId: s.clusterId,
    collectionStrategy: s.collectionStrategy,
    createdAt: s.createdAt,
  };
}

export const CSV_FIELDS = [
  'id',
  'session_id',
  'sample_type',
  'annotation_status',
  'quality_score',
  'conversation_clarity',
  'decision_confidence',
  'fact_verifiability',
  'instruction',
  'input',
  'output',
  'content',
  'labels',
  'created_at',
] as const;

/** The sample fields a CSV row reads. */
export type CsvRowSample = Pick<
  DatasetSample,
  'id' | 'sessionId' | 'sampleType' | 'annotationStatus' | 'qualityScore' | 'qualityFactors' | 'labels' | 'createdAt'
>;

/**
 * A sample's stored JSON texts that are exactly what JSON.stringify writes for their parsed values
 * (canonicalJson.ts), so raw and csv write them as they are; null where the value must be serialized.
 */
export interface StoredJson {
  content: string | null;
  labels: string | null;
  qualityFactors: string | null;
}

/** new Date(ms).toISOString(), with the date part kept from the previous call (exports run in time order). */
let isoDay = NaN;
let isoDayPrefix = '';
/** 00..99, so a time of day is put together without a padStart per field. */
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
export function isoTime(ms: number): string {
  // years 1970 to 9999 at whole milliseconds; anything else (and an invalid time's RangeError) is Date's
  if (!Number.isInteger(ms) || ms < 0 || ms >= 253402300800000) return new Date(ms).toISOString();
  const day = Math.floor(ms / 86400000);
  if (day !== isoDay) {
    isoDayPrefix = new Date(day * 86400000).toISOString().slice(0, 11);
    isoDay = day;
  }
  let rest = ms - day * 86400000;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const sec = rest % 60;
  rest = (rest - sec) / 60;
  const hour = (rest - (rest % 60)) / 60;
  const ms3 = milli < 100 ? `0${TWO_DIGITS[milli]!}` : String(milli);
  return `${isoDayPrefix}${TWO_DIGITS[hour]!}:${TWO_DIGITS[rest % 60]!}:${TWO_DIGITS[sec]!}.${ms3}Z`;
}

export function csvRow(
  s: CsvRowSample,
  content: SampleContent,
  sessionId = s.sessionId,
  t: Task = taskOf(content),
  json: StoredJson | null = null,
): (string | number | null)[] {
  const f: QualityFactors | null = s.qualityFactors;
  return [
    s.id,
    sessionId,
    s.sampleType,
    s.annotationStatus,
    s.qualityScore,
    f?.conversationClarity ?? null,
    f?.decisionConfidence ?? null,
    f?.factVerifiability ?? null,
    t.instruction,
    t.input,
    t.output,
    json?.content ?? JSON.stringify(content),
    json?.labels ?? JSON.stringify(s.labels),
    isoTime(s.createdAt),
  ];
}
