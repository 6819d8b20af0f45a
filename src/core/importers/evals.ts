// Imports the plugin's labelled eval sets as gold samples: each scenario joined with its expected
// labels. Every version (the current set, frozen v1-research, v2, ...) comes in one run; a scenario
// listed by several versions is one sample, and each version it belongs to is kept as a label
// (eval_scenario_versions). memory_gate cases become a turn with its context and an approved
// annotated_turn sample; write_guardian cases an approved write_guardian_decision sample.
// Model runs (evals/results/*.json) come in through evalResults.ts.
import fs from 'node:fs';
import path from 'node:path';
import { writeTx } from '../db/connection';
import { insertGoldSampleIfNew, insertScenarioVersionIfNew, type GoldSampleParams } from '../db/repositories/evals';
import { GATE_DECISIONS, MEMORY_FILES } from '../../shared/domain';
import { nowOf, type ServiceContext } from '../context';
import { importEvalResults } from './evalResults';
import { readJsonLines, resolveEvalSources, type EvalTask, type EvalVersionSet } from './evalSources';
import { isObj, oneOf, optStr, str, type Obj } from './fields';
import { finishImport } from './finish';
import { serialized } from './serialize';
import type { ImportReport } from '../../shared/contract';
import { ReportBuilder } from './report';
import { ImportStore } from './store';
import { SkipLine, skipLine } from './stream';

export interface EvalsInput {
  /** A plugin root, its evals/datasets folder, one task folder (evals/datasets/memory-gate), or results *.json. */
  source: string;
}

/** One scenario as one version lists it, with that version's expected labels. */
interface ScenarioVersion {
  version: string;
  task: EvalTask;
  scenario: Obj;
  expected: Obj;
  file: string;
  line: number;
}

/** What every gold sample of one scenario shares (its row but for type, turn and content). */
type GoldBase = Omit<GoldSampleParams, 'type' | 'turnId' | 'content'>;
/** The scenario's provenance, kept in the session's metadata and in each sample. */
interface GoldInfo {
  scenarioId: string;
  title: string;
  notes: string | null;
  taskType: EvalTask;
  dataset: string;
  versions: string[];
  tags: string[];
}

export const GOLD_STRATEGY = 'gold_eval';

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

/** Reads every version's scenarios and labels; returns the versions of each scenario, current first. */
async function gather(
  sets: EvalVersionSet[],
  report: ReportBuilder,
): Promise<{ byId: Map<string, ScenarioVersion[]>; reportOrphans: () => void }> {
  const byId = new Map<string, ScenarioVersion[]>();
  const labelFiles = new Map<string, { cases: Map<string, { value: Obj; line: number }>; seen: Set<string> }>();
  const labelsOf = async (file: string) => {
    let l = labelFiles.get(file);
    if (!l) {
      l = { cases: new Map((await readJsonLines(file, report)).map((c) => [c.value.scenario_id as string, c])), seen: new Set() };
      labelFiles.set(file, l);
    }
    return l;
  };
  for (const set of sets) {
    if (!fs.existsSync(set.scenarios)) {
      report.note(`No scenarios at ${set.scenarios}.`);
      continue;
    }
    const rows = await readJsonLines(set.scenarios, report);
    report.report.files.push({
      path: set.scenarios,
      fromOffset: 0,
      bytesRead: fs.statSync(set.scenarios).size,
      linesRead: rows.length,
      restarted: false,
    });
    for (const { value, line } of rows) {
      const id = value.scenario_id as string;
      const task = value.task_type;
      if (task !== 'memory_gate' && task !== 'write_guardian') {
        report.skip(set.scenarios, line, `task_type: unknown value ${JSON.stringify(String(task).slice(0, 40))}`);
        continue;
      }
      report.report.linesUnderstood++;
      if (set.only && task !== set.only) continue;
      const labelFile = set.labels[task];
      if (!fs.existsSync(labelFile)) {
        // A frozen memory-gate version carries a copy of the shared scenarios, write_guardian ones included.
        if (set.label === 'current') report.note(`No ${task} labels at ${labelFile}.`);
        else report.ignore(`scenarios a version lists without labels for their task`);
        continue;
      }
      const labels = await labelsOf(labelFile);
      const c = labels.cases.get(id);
      if (!c) {
        report.skip(set.scenarios, line, `no expected labels for ${id} in ${path.basename(path.dirname(labelFile))}/benchmark.jsonl`);
        continue;
      }
      labels.seen.add(id);
      const list = byId.get(id) ?? [];
      list.push({ version: set.label, task, scenario: value, expected: c.value, file: set.scenarios, line });
      byId.set(id, list);
    }
  }
  const reportOrphans = () => {
    for (const [file, l] of labelFiles)
      for (const [id, c] of l.cases) if (!l.seen.has(id)) report.skip(file, c.line, `no scenario ${id} in shared/scenarios.jsonl`);
  };
  return { byId, reportOrphans };
}

export function importEvals(ctx: ServiceContext, input: EvalsInput): Promise<ImportReport> {
  return serialized(ctx.db, 'evals', () => run(ctx, input));
}

async function run(ctx: ServiceContext, input: EvalsInput): Promise<ImportReport> {
  const report = new ReportBuilder('evals', input.source, nowOf(ctx));
  const sources = resolveEvalSources(input.source);
  const { byId, reportOrphans } = await gather(sources.sets, report);
  const writer = new GoldWriter(ctx, report);
  writeTx(ctx.db, () => {
    for (const [id, versions] of byId) writer.write(id, versions);
  });
  reportOrphans();
  if (byId.size)
    report.note(`${byId.size} distinct scenarios across ${new Set([...byId.values()].flat().map((v) => v.version)).size} versions.`);
  importEvalResults(ctx, report, sources.results);
  return finishImport(ctx, report);
}

class GoldWriter {
  private readonly store: ImportStore;
  private readonly now: number;
  private readonly actor: string;
  private readonly savepoint;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly report: ReportBuilder,
  ) {
    this.store = new ImportStore(ctx.db, report);
    this.now = nowOf(ctx);
    this.actor = ctx.actor ?? GOLD_STRATEGY;
    this.savepoint = ctx.db.transaction((fn: () => void) => fn());
  }

  /** The first version that makes a valid sample defines it (current before frozen ones); every version is recorded. */
  write(id: string, versions: ScenarioVersion[]): void {
    const labels = versions.map((v) => v.version);
    let sampleId: string | null = null;
    for (const v of versions) {
      try {
        this.savepoint(() => this.sample(id, v, labels));
        sampleId = `gold:${id}`;
        break;
      } catch (e) {
        if (!(e instanceof SkipLine)) throw e;
        this.report.skip(v.file, v.line, e.message);
      }
    }
    for (const v of versions) {
      const changes = insertScenarioVersionIfNew(this.ctx.db, {
        scenarioId: id,
        version: v.version,
        task: v.task,
        sampleId,
        expected: JSON.stringify(v.expected),
        file: v.file,
        now: this.now,
      });
      this.report.inserted('eval_scenario_versions', changes);
    }
  }

  private sample(id: string, v: ScenarioVersion, versions: string[]): void {
    const { scenario: s, expected: c } = v;
    const sessionId = `eval:${id}`;
    const title = optStr(s, 'title') ?? '';
    const notes = optStr(s, 'notes') ?? null;
    const gold = { scenarioId: id, title, notes, taskType: v.task, dataset: v.version, versions, tags: strings(c.tags, 'tags') };
    const base = {
      factors: JSON.stringify({ gold: true }),
      actor: this.actor,
      now: this.now,
      notes,
      sourceKey: `${GOLD_STRATEGY}:${v.task}:${id}`,
      strategy: GOLD_STRATEGY,
      sessionId,
      id: `gold:${id}`,
    };
    // The session is stored only once the scenario's fields have been read without a skip.
    const session = () =>
      this.store.upsertSession({
        id: sessionId,
        channelId: 'eval',
        conversationTarget: id,
        createdAt: this.now,
        lastActivityAt: this.now,
        metadata: { eval: gold },
      });
    if (v.task === 'memory_gate') this.gateSample(id, v, base, gold, session);
    else this.guardianSample(v, base, gold, session);
  }

  /** A memory_gate scenario: its conversation as a turn, and the expected decision as an annotated sample. */
  private gateSample(id: string, v: ScenarioVersion, base: GoldBase, gold: GoldInfo, session: () => void): void {
    const { scenario: s, expected: c } = v;
    const sessionId = base.sessionId;
    {
      const recent = messages(s.recent_messages);
      const userMessage = str(s, 'current_user_message');
      const agentReply = str(s, 'current_agent_reply');
      const decision = oneOf(c, 'expected_decision', GATE_DECISIONS, 'expected.');
      const fact = optStr(c, 'expected_candidate_fact', 'expected.');
      const variants = strings(c.allowed_candidate_fact_variants, 'allowed_candidate_fact_variants');
      const context = [...recent, { role: 'user' as const, message: userMessage }, { role: 'agent' as const, message: agentReply }];
      session();
      const turnId = `eval:${id}:turn`;
      this.store.insertTurn({
        id: turnId,
        sessionId,
        userContent: userMessage,
        agentContent: agentReply,
        userMetadata: { gold: true, scenarioId: id },
        agentMetadata: { gold: true, scenarioId: id },
        createdAt: this.now,
        context: context.map((m, i) => ({ ...m, timestamp: this.now - (context.length - 1 - i) })),
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
      this.report.inserted(
        'dataset_samples',
        insertGoldSampleIfNew(this.ctx.db, { ...base, type: 'annotated_turn', turnId, content: JSON.stringify(content) }),
      );
    }
  }

  /** A write_guardian scenario: the expected write (or refusal) as a decision sample. */
  private guardianSample(v: ScenarioVersion, base: GoldBase, gold: GoldInfo, session: () => void): void {
    const { scenario: s, expected: c } = v;
    const targetFile = oneOf(s, 'target_file', MEMORY_FILES);
    const candidateFact = str(s, 'candidate_fact');
    const currentContent = optStr(s, 'current_file_content') ?? '';
    if (typeof c.expected_should_write !== 'boolean') skipLine('expected_should_write: expected a boolean');
    session();
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
    this.report.inserted(
      'dataset_samples',
      insertGoldSampleIfNew(this.ctx.db, { ...base, type: 'write_guardian_decision', turnId: null, content: JSON.stringify(content) }),
    );
  }
}
