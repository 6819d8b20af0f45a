// Imports the plugin's labelled eval sets as gold samples: each scenario joined with its expected
// labels. memory_gate cases become a turn with its context and an approved annotated_turn sample;
// write_guardian cases become an approved write_guardian_decision sample with the file content.
import fs from 'node:fs';
import path from 'node:path';
import { GATE_DECISIONS, MEMORY_FILES } from '../../../shared/domain';
import { AppError } from '../../../shared/errors';
import { nowOf, type ServiceContext } from '../context';
import { isObj, oneOf, optStr, str } from './fields';
import { finishImport } from './finish';
import { serialized } from './serialize';
import { ReportBuilder, type ImportReport } from './report';
import { ImportStore } from './store';
import { importJsonLines, skipLine } from './stream';

export interface EvalsInput {
  /** The datasets folder: shared/scenarios.jsonl, memory-gate/benchmark.jsonl, write-guardian/benchmark.jsonl. */
  source: string;
}

type Obj = Record<string, unknown>;

export const GOLD_STRATEGY = 'gold_eval';
const MAX_CASES = 100_000;

function readCases(file: string, report: ReportBuilder, kind: string): Map<string, { value: Obj; line: number }> {
  const cases = new Map<string, { value: Obj; line: number }>();
  if (!fs.existsSync(file)) {
    report.note(`No ${kind} labels at ${file}.`);
    return cases;
  }
  // Label files are small (one line per case); the scenarios file is the one that streams.
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines.slice(0, MAX_CASES).forEach((text, i) => {
    if (!text.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      report.skip(file, i + 1, 'malformed JSON');
      return;
    }
    if (!isObj(v) || typeof v.scenario_id !== 'string') {
      report.skip(file, i + 1, 'scenario_id: missing or not a string');
      return;
    }
    cases.set(v.scenario_id, { value: v, line: i + 1 });
  });
  return cases;
}

function strings(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) skipLine(`${field}: expected an array of strings`);
  return v as string[];
}

function messages(v: unknown): Array<{ role: 'user' | 'agent'; message: string }> {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) skipLine('recent_messages: expected an array');
  return (v as unknown[]).map((m, i) => {
    if (!isObj(m)) skipLine(`recent_messages.${i}: expected an object`);
    const role = oneOf(m as Obj, 'role', ['user', 'agent'] as const, `recent_messages.${i}.`);
    return { role, message: str(m as Obj, 'message', `recent_messages.${i}.`) };
  });
}

export function importEvals(ctx: ServiceContext, input: EvalsInput): Promise<ImportReport> {
  return serialized(ctx.db, 'evals', () => run(ctx, input));
}

async function run(ctx: ServiceContext, input: EvalsInput): Promise<ImportReport> {
  const report = new ReportBuilder('evals', input.source, nowOf(ctx));
  if (!fs.existsSync(input.source)) throw new AppError('NotFound', `${input.source} does not exist`);
  const scenarios = path.resolve(input.source, 'shared', 'scenarios.jsonl');
  const gateFile = path.resolve(input.source, 'memory-gate', 'benchmark.jsonl');
  const guardianFile = path.resolve(input.source, 'write-guardian', 'benchmark.jsonl');
  const gateCases = readCases(gateFile, report, 'memory_gate');
  const guardianCases = readCases(guardianFile, report, 'write_guardian');
  const store = new ImportStore(ctx.db, report);
  const now = nowOf(ctx);
  const actor = ctx.actor ?? GOLD_STRATEGY;
  const seen = new Set<string>();
  const insertSample = ctx.db.prepare(`
    INSERT OR IGNORE INTO dataset_samples (id, sample_type, turn_id, session_id, content, quality_score, quality_factors,
      annotation_status, annotated_by, annotated_at, annotation_notes, source_key, collection_strategy, created_at)
    VALUES (@id, @type, @turnId, @sessionId, @content, 1, @factors, 'approved', @actor, @now, @notes, @sourceKey, @strategy, @now)`);

  if (!fs.existsSync(scenarios)) {
    report.note(`No scenarios at ${scenarios}.`);
  } else {
    await importJsonLines(ctx, report, {
      importer: 'evals',
      file: scenarios,
      // Labels can change while scenarios do not: always read the whole (small) file; source keys dedupe.
      start: { offset: 0, line: 0, state: null, restarted: false, size: fs.statSync(scenarios).size, inode: '' },
      handle: (s) => {
        const id = str(s, 'scenario_id');
        const taskType = oneOf(s, 'task_type', ['memory_gate', 'write_guardian'] as const);
        const title = optStr(s, 'title') ?? '';
        const notes = optStr(s, 'notes') ?? null;
        const cases = taskType === 'memory_gate' ? gateCases : guardianCases;
        const c = cases.get(id)?.value ?? skipLine(`no expected labels for ${id} in ${path.basename(path.dirname(taskType === 'memory_gate' ? gateFile : guardianFile))}/benchmark.jsonl`);
        seen.add(id);
        const sessionId = `eval:${id}`;
        const gold = { scenarioId: id, title, notes, taskType, dataset: path.basename(path.resolve(input.source)), tags: strings(c.tags, 'tags') };
        const sourceKey = `${GOLD_STRATEGY}:${taskType}:${id}`;
        const factors = JSON.stringify({ gold: true });

        if (taskType === 'memory_gate') {
          const recent = messages(s.recent_messages);
          const userMessage = str(s, 'current_user_message');
          const agentReply = str(s, 'current_agent_reply');
          const decision = oneOf(c, 'expected_decision', GATE_DECISIONS, 'expected.');
          const fact = optStr(c, 'expected_candidate_fact', 'expected.');
          const variants = strings(c.allowed_candidate_fact_variants, 'allowed_candidate_fact_variants');
          const context = [...recent, { role: 'user' as const, message: userMessage }, { role: 'agent' as const, message: agentReply }];
          store.upsertSession({ id: sessionId, channelId: 'eval', conversationTarget: id, createdAt: now, lastActivityAt: now, metadata: { eval: gold } });
          const turnId = `eval:${id}:turn`;
          store.insertTurn({
            id: turnId,
            sessionId,
            userContent: userMessage,
            agentContent: agentReply,
            userMetadata: { gold: true, scenarioId: id },
            agentMetadata: { gold: true, scenarioId: id },
            createdAt: now,
            context: context.map((m, i) => ({ ...m, timestamp: now - (context.length - 1 - i) })),
          });
          const content = {
            type: 'annotated_turn',
            conversationId: sessionId,
            turnNumber: 0,
            context,
            memoryGate: {
              input: { recentMessages: recent, currentUserMessage: userMessage, currentAgentReply: agentReply },
              output: { decision, ...(fact ? { candidateFact: fact } : {}) },
              label: 'correct',
              allowedCandidateFactVariants: variants,
              severity: optStr(c, 'severity', 'expected.') ?? null,
            },
            writeGuardian: null,
            gold,
          };
          report.inserted('dataset_samples', insertSample.run({ id: `gold:${id}`, type: 'annotated_turn', turnId, sessionId, content: JSON.stringify(content), factors, actor, now, notes, sourceKey, strategy: GOLD_STRATEGY }).changes);
          return;
        }

        const targetFile = oneOf(s, 'target_file', MEMORY_FILES);
        const candidateFact = str(s, 'candidate_fact');
        const currentContent = optStr(s, 'current_file_content') ?? '';
        if (typeof c.expected_should_write !== 'boolean') skipLine('expected_should_write: expected a boolean');
        store.upsertSession({ id: sessionId, channelId: 'eval', conversationTarget: id, createdAt: now, lastActivityAt: now, metadata: { eval: gold } });
        const content = {
          type: 'write_guardian_decision',
          candidateFact,
          targetFile,
          currentFileContent: currentContent,
          decision: c.expected_should_write ? 'written' : 'refused',
          gate: { decision: optStr(s, 'gate_decision') ?? null, reason: optStr(s, 'gate_reason') ?? null },
          expected: {
            outcomeType: optStr(c, 'expected_outcome_type', 'expected.') ?? null,
            allowedToolTraces: Array.isArray(c.allowed_tool_traces) ? c.allowed_tool_traces : [],
            contentContains: strings(c.expected_content_contains, 'expected_content_contains'),
            contentNotContains: strings(c.expected_content_not_contains, 'expected_content_not_contains'),
          },
          gold,
        };
        report.inserted('dataset_samples', insertSample.run({ id: `gold:${id}`, type: 'write_guardian_decision', turnId: null, sessionId, content: JSON.stringify(content), factors, actor, now, notes, sourceKey, strategy: GOLD_STRATEGY }).changes);
      },
    });
  }
  for (const [file, cases] of [[gateFile, gateCases], [guardianFile, guardianCases]] as const) {
    for (const [id, c] of cases) if (!seen.has(id)) report.skip(file, c.line, `no scenario ${id} in shared/scenarios.jsonl`);
  }
  return finishImport(ctx, report);
}
