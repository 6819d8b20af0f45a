// One sample -> one record per export format (formats.md). Pure functions; export.ts streams them.
import type { GateDecision } from '../../../shared/domain';
import type { QualityFactors } from './quality';
import type { DatasetSample, Message, SampleContent } from './types';

export const GATE_INSTRUCTION =
  'Based on the following conversation, decide if this should be written to memory and which file it belongs to.';
export const GUARDIAN_INSTRUCTION =
  "Decide whether write_guardian should write this candidate fact into the target memory file, given the file's current content.";

export interface Task {
  instruction: string;
  input: string;
  output: string;
  /** The conversation, when the task is about one (ShareGPT keeps its turns). */
  conversation?: Message[];
  decision?: string;
  fact?: string;
}

export function transcript(conversation: Message[]): string {
  return conversation.map((m) => `${m.role === 'user' ? 'User' : 'Agent'}: ${m.message}`).join('\n');
}

export function gateOutput(decision: string, fact: string | undefined | null, reason: string | undefined | null): string {
  const lines = [`Decision: ${decision}`];
  if (fact && decision !== 'NO_WRITE') lines.push(`Fact: ${fact}`);
  if (reason) lines.push(`Reason: ${reason}`);
  return lines.join('\n');
}

/** The supervised task a sample teaches: what the model sees and what it should answer. */
export function taskOf(c: SampleContent): Task {
  switch (c.type) {
    case 'memory_gate_positive':
      return {
        instruction: GATE_INSTRUCTION,
        input: transcript(c.conversation),
        output: gateOutput(c.correctDecision, c.correctFact, c.reason),
        conversation: c.conversation,
        decision: c.correctDecision,
        fact: c.correctFact,
      };
    case 'memory_gate_negative':
      return {
        instruction: GATE_INSTRUCTION,
        input: transcript(c.conversation),
        output: gateOutput(c.correctDecision, c.correctFact, c.rejectionReason),
        conversation: c.conversation,
        decision: c.correctDecision,
        fact: c.correctDecision === 'NO_WRITE' ? undefined : c.correctFact,
      };
    case 'write_guardian_decision': {
      const final = c.userCorrection?.correctedDecision ?? c.decision;
      const fact = c.userCorrection?.correctedFact;
      const lines = [`Decision: ${final}`];
      if (fact) lines.push(`Fact: ${fact}`);
      const reason = c.userCorrection?.reason ?? c.reason;
      if (reason) lines.push(`Reason: ${reason}`);
      return {
        instruction: GUARDIAN_INSTRUCTION,
        input: `Candidate fact: ${c.candidateFact}\nTarget file: ${c.targetFile}\nCurrent content:\n${c.currentFileContent}`,
        output: lines.join('\n'),
        decision: final,
      };
    }
    case 'annotated_turn': {
      const g = c.memoryGate;
      const out =
        g.correctedOutput ??
        (g.label === 'incorrect'
          ? { decision: 'NO_WRITE' as GateDecision, reason: c.writeGuardian.output.reason ?? 'The proposed write was refused or rolled back.' }
          : g.output);
      return {
        instruction: GATE_INSTRUCTION,
        input: transcript(c.context),
        output: gateOutput(out.decision, out.candidateFact, out.reason),
        conversation: c.context,
        decision: out.decision,
        fact: out.decision === 'NO_WRITE' ? undefined : out.candidateFact,
      };
    }
  }
}

export function alpacaRecord(c: SampleContent): { instruction: string; input: string; output: string } {
  const t = taskOf(c);
  return { instruction: t.instruction, input: t.input, output: t.output };
}

export interface ShareGptTurn {
  from: 'human' | 'gpt' | 'system';
  value: string;
  memory_gate_decision?: string;
  candidate_fact?: string;
}

/**
 * ShareGPT as LLaMA-Factory reads it: human at even indexes, gpt at odd ones, an even count.
 * Conversations keep their turns (the seed's example); same-role runs are joined, a leading agent
 * message and a trailing user message are dropped. Tasks without a conversation become one exchange.
 */
export function sharegptRecord(c: SampleContent): { conversations: ShareGptTurn[] } {
  const t = taskOf(c);
  const turns: ShareGptTurn[] = [];
  for (const m of t.conversation ?? []) {
    const from = m.role === 'user' ? 'human' : 'gpt';
    const last = turns[turns.length - 1];
    if (last && last.from === from) last.value = `${last.value}\n${m.message}`;
    else if (turns.length || from === 'human') turns.push({ from, value: m.message });
  }
  if (turns.length && turns[turns.length - 1].from === 'human') turns.pop();
  if (turns.length < 2 || turns.some((x) => !x.value.trim())) {
    return {
      conversations: [
        { from: 'human', value: `${t.instruction}\n${t.input}` },
        { from: 'gpt', value: t.output },
      ],
    };
  }
  const last = turns[turns.length - 1];
  if (t.decision) last.memory_gate_decision = t.decision;
  if (t.fact) last.candidate_fact = t.fact;
  return { conversations: turns };
}

export interface OpenAiMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export function openaiRecord(c: SampleContent): { messages: OpenAiMessage[] } {
  const t = taskOf(c);
  return {
    messages: [
      { role: 'system', content: t.instruction },
      { role: 'user', content: t.input || '(empty)' },
      { role: 'assistant', content: t.output },
    ],
  };
}

/** OpenAI preference pair from a correction: the corrected output is preferred over the original. */
export function openaiDpoRecord(c: SampleContent): {
  input: { messages: OpenAiMessage[] };
  preferred_output: OpenAiMessage[];
  non_preferred_output: OpenAiMessage[];
} | null {
  if (c.type !== 'memory_gate_negative') return null;
  const t = taskOf(c);
  return {
    input: { messages: [{ role: 'system', content: t.instruction }, { role: 'user', content: t.input || '(empty)' }] },
    preferred_output: [{ role: 'assistant', content: t.output }],
    non_preferred_output: [{ role: 'assistant', content: gateOutput(c.incorrectDecision, c.incorrectFact, c.originalReason) }],
  };
}

/** The whole sample record (raw JSONL): ids, type, labels, quality factors, and the (redacted) content. */
export function rawRecord(s: DatasetSample, content: SampleContent, sessionId = s.sessionId): Record<string, unknown> {
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

/** contentJson: the content as stored (JSON.stringify of it), which saves serializing it again. */
export function csvRow(s: DatasetSample, content: SampleContent, sessionId = s.sessionId, contentJson?: string): (string | number | null)[] {
  const t = taskOf(content);
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
    contentJson ?? JSON.stringify(content),
    JSON.stringify(s.labels),
    new Date(s.createdAt).toISOString(),
  ];
}
