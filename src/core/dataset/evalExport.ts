// Held-out evaluation set in the plugin's own eval format (evals/datasets of openclaw-reflection:
// shared/scenarios.jsonl, memory-gate/benchmark.jsonl, write-guardian/benchmark.jsonl), so its evals
// runner can score a new model on the validation split with the curator's gold labels.
import fs from 'node:fs';
import path from 'node:path';
import { decisionForFile, type GateDecision, type MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { ServiceContext } from '../context';
import { listSamplesWithGateReason } from '../db/repositories/exportSamples';
import { exportContent } from './export';
import { planExport, resolveExport, type ExportOptions } from './exportPlan';
import { loadPiiDetector } from './privacy';
import { SessionValues, hideSessionValues } from './sessionPrivacy';
import {
  SAMPLE_COLUMNS,
  sampleFromRow,
  type DatasetSample,
  type Message,
  type SampleContent,
  type StoredSampleRow,
  type WriteGuardianSample,
} from './types';

export interface EvalExportOptions extends Pick<
  ExportOptions,
  'trainSplit' | 'splitBy' | 'seed' | 'includeUnreviewed' | 'minQuality' | 'includeBelowQuality' | 'config'
> {
  outDir: string;
}

export interface EvalExportResult {
  outDir: string;
  scenarios: number;
  memoryGateCases: number;
  writeGuardianCases: number;
  files: string[];
}

/** The plugin runner's SharedScenario. */
interface Scenario {
  scenario_id: string;
  task_type: 'memory_gate' | 'write_guardian';
  title: string;
  recent_messages?: Message[];
  current_user_message?: string;
  current_agent_reply?: string;
  gate_decision?: GateDecision;
  gate_reason?: string;
  candidate_fact?: string;
  target_file?: MemoryFileName;
  current_file_content?: string;
  notes: string;
}

const title = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 80) || 'untitled';

function gateCase(s: DatasetSample, c: SampleContent): { scenario: Scenario; bench: Record<string, unknown> } | null {
  if (c.type !== 'memory_gate_positive' && c.type !== 'memory_gate_negative') return null;
  const conv = c.conversation;
  const i = conv.findLastIndex((m) => m.role === 'user');
  const user = conv[i];
  if (!user) return null;
  const reply = conv.slice(i + 1).find((m) => m.role === 'agent')?.message ?? '';
  const decision = c.correctDecision;
  const fact = c.correctFact;
  const id = `wb_${s.id}`;
  return {
    scenario: {
      scenario_id: id,
      task_type: 'memory_gate',
      title: title(user.message),
      recent_messages: conv.slice(0, i),
      current_user_message: user.message,
      current_agent_reply: reply,
      notes: `Reflection Workbench sample ${s.id} (${s.collectionStrategy ?? s.sampleType}, ${s.annotationStatus})`,
    },
    bench: {
      scenario_id: id,
      expected_decision: decision,
      ...(decision !== 'NO_WRITE' && fact ? { expected_candidate_fact: fact, allowed_candidate_fact_variants: [] } : {}),
      severity: 'core',
      tags: [s.sampleType, s.collectionStrategy ?? 'collected', decision === 'NO_WRITE' ? 'negative' : 'positive'],
    },
  };
}

function guardianCase(
  s: DatasetSample,
  c: WriteGuardianSample,
  gateReason: string,
): { scenario: Scenario; bench: Record<string, unknown> } {
  const action = c.userCorrection?.correctedDecision ?? c.decision;
  const write = action === 'written';
  const fact = c.userCorrection?.correctedFact ?? c.candidateFact;
  const id = `wb_${s.id}`;
  return {
    scenario: {
      scenario_id: id,
      task_type: 'write_guardian',
      title: title(c.candidateFact),
      gate_decision: decisionForFile(c.targetFile as MemoryFileName),
      gate_reason: gateReason,
      candidate_fact: c.candidateFact,
      target_file: c.targetFile as MemoryFileName,
      current_file_content: c.currentFileContent,
      notes: `Reflection Workbench sample ${s.id} (${s.collectionStrategy ?? s.sampleType}, ${s.annotationStatus})`,
    },
    bench: {
      scenario_id: id,
      expected_should_write: write,
      expected_outcome_type: write ? `update_${c.targetFile.replace('.md', '').toLowerCase()}` : action === 'skipped' ? 'skip' : 'refuse',
      allowed_tool_traces: write ? [['read', 'write']] : [[], ['read']],
      expected_content_contains: write ? [fact] : [],
      expected_content_not_contains: write ? [] : [c.candidateFact],
      tags: [write ? 'positive' : 'refusal', s.collectionStrategy ?? 'collected'],
    },
  };
}

/** Writes the validation split (gold-labelled, redacted) as the plugin's eval datasets. */
export async function exportEvalSet(ctx: ServiceContext, opts: EvalExportOptions): Promise<EvalExportResult> {
  if (!opts?.outDir) throw new AppError('Invalid', 'eval export: outDir is required');
  const r = resolveExport({
    ...opts,
    format: 'raw',
    sampleTypes: ['memory_gate_positive', 'memory_gate_negative', 'write_guardian_decision'],
  });
  const plan = planExport(ctx, r);
  const held = Array.from(plan.rowids).filter((_, i) => plan.validation[i] === 1);
  if (!held.length) {
    throw new AppError(
      'Invalid',
      `eval export: no held-out samples (${plan.rowids.length} selected, none in validation); ${plan.notes.join('; ') || 'lower the train split'}`,
    );
  }
  const detect = await loadPiiDetector();
  const rows = listSamplesWithGateReason<StoredSampleRow>(ctx.db, SAMPLE_COLUMNS, held);
  const sessionValues = new SessionValues(ctx.db);
  const scenarios: Scenario[] = [];
  const gate: Record<string, unknown>[] = [];
  const guardian: Record<string, unknown>[] = [];
  for (const row of rows) {
    const s = sampleFromRow(row);
    const c = hideSessionValues(exportContent(s, { includePii: false }, detect), sessionValues.of(s.sessionId));
    const made = c.type === 'write_guardian_decision' ? guardianCase(s, c, row.gate_reason ?? '') : gateCase(s, c);
    if (!made) continue;
    scenarios.push(made.scenario);
    (c.type === 'write_guardian_decision' ? guardian : gate).push(made.bench);
  }
  const write = (rel: string, items: unknown[]) => {
    const file = path.join(opts.outDir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, items.map((x) => `${JSON.stringify(x)}\n`).join(''));
    return file;
  };
  const files = [
    write('shared/scenarios.jsonl', scenarios),
    write('memory-gate/benchmark.jsonl', gate),
    write('write-guardian/benchmark.jsonl', guardian),
  ];
  return { outDir: opts.outDir, scenarios: scenarios.length, memoryGateCases: gate.length, writeGuardianCases: guardian.length, files };
}
