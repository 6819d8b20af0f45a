// Where the plugin keeps its eval sets, and reading them. The layout (parkgogogo/openclaw-reflection,
// evals/datasets): shared/scenarios.jsonl with memory-gate/benchmark.jsonl and write-guardian/benchmark.jsonl
// is the current set; memory-gate/<version>/ and write-guardian/<version>/ hold frozen versions
// (v1-research, v2) laid out the same way. Results of model runs sit in evals/results/*.json.
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import { str, type Obj } from './fields';
import { parseJsonObject, readLines } from './lines';
import type { ReportBuilder } from './report';
import { SkipLine, skipLine } from './stream';

export type EvalTask = 'memory_gate' | 'write_guardian';

/** One version of the eval set: its scenarios and, per task, the file of expected labels. */
export interface EvalVersionSet {
  label: string;
  scenarios: string;
  labels: Record<EvalTask, string>;
  /** A task folder was given: only its task is imported. */
  only?: EvalTask;
}

export interface EvalSources {
  sets: EvalVersionSet[];
  results: string[];
}

const TASK_DIRS: Record<string, EvalTask> = { 'memory-gate': 'memory_gate', 'write-guardian': 'write_guardian' };
const isDir = (d: string) => fs.existsSync(d) && fs.statSync(d).isDirectory();
const isFile = (f: string) => fs.existsSync(f) && fs.statSync(f).isFile();

const labelsIn = (dir: string): Record<EvalTask, string> => ({
  memory_gate: path.join(dir, 'memory-gate', 'benchmark.jsonl'),
  write_guardian: path.join(dir, 'write-guardian', 'benchmark.jsonl'),
});

/** Frozen versions inside a task folder, newest name first (v2 before v1-research). */
function versionsUnder(taskDir: string, only?: EvalTask): EvalVersionSet[] {
  if (!isDir(taskDir)) return [];
  return fs
    .readdirSync(taskDir)
    .filter((v) => isFile(path.join(taskDir, v, 'shared', 'scenarios.jsonl')))
    .sort()
    .reverse()
    .map((v) => ({
      label: v,
      scenarios: path.join(taskDir, v, 'shared', 'scenarios.jsonl'),
      labels: labelsIn(path.join(taskDir, v)),
      ...(only ? { only } : {}),
    }));
}

function datasetsRoot(root: string): EvalVersionSet[] {
  const current: EvalVersionSet = { label: 'current', scenarios: path.join(root, 'shared', 'scenarios.jsonl'), labels: labelsIn(root) };
  return [current, ...Object.keys(TASK_DIRS).flatMap((d) => versionsUnder(path.join(root, d)))];
}

const resultFiles = (dir: string) =>
  isDir(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => path.join(dir, f))
    : [];

/**
 * Accepts a plugin root, its evals/ or evals/datasets folder, one task folder (evals/datasets/memory-gate),
 * a results folder or one results file.
 */
export function resolveEvalSources(source: string): EvalSources {
  const abs = path.resolve(source);
  if (!fs.existsSync(abs)) throw new AppError('NotFound', `${source} does not exist`);
  if (isFile(abs)) {
    if (abs.endsWith('.json')) return { sets: [], results: [abs] };
    throw new AppError('Invalid', `${source} is a file: give a plugin root, an evals/datasets folder or a results .json file`);
  }
  for (const root of [path.join(abs, 'evals'), abs]) {
    if (isDir(path.join(root, 'datasets')))
      return { sets: datasetsRoot(path.join(root, 'datasets')), results: resultFiles(path.join(root, 'results')) };
  }
  if (isFile(path.join(abs, 'shared', 'scenarios.jsonl'))) {
    const results = path.basename(abs) === 'datasets' ? resultFiles(path.join(path.dirname(abs), 'results')) : [];
    return { sets: datasetsRoot(abs), results };
  }
  const task = TASK_DIRS[path.basename(abs)];
  if (task) {
    const current: EvalVersionSet = {
      label: 'current',
      scenarios: path.join(path.dirname(abs), 'shared', 'scenarios.jsonl'),
      labels: { ...labelsIn(path.dirname(abs)), [task]: path.join(abs, 'benchmark.jsonl') },
      only: task,
    };
    return { sets: [current, ...versionsUnder(abs, task)], results: [] };
  }
  const results = resultFiles(abs);
  if (results.length) return { sets: [], results };
  throw new AppError(
    'NotFound',
    `${source} holds no eval sets: expected a plugin root (evals/datasets), a datasets folder with shared/scenarios.jsonl, a memory-gate or write-guardian folder, or results *.json`,
  );
}

/**
 * A JSON Lines file of scenarios or labels, streamed line by line (bounded line length, UTF-8
 * checked per line), each object with its line number; a damaged line is skipped with its reason.
 */
export async function readJsonLines(file: string, report: ReportBuilder): Promise<Array<{ value: Obj; line: number }>> {
  const out: Array<{ value: Obj; line: number }> = [];
  for await (const l of readLines(file)) {
    if (l.problem) {
      report.skip(file, l.lineNumber, `${l.problem === 'too_long' ? 'line too long' : 'invalid UTF-8'} (${l.bytes} bytes)`);
      continue;
    }
    if (!l.text?.trim()) continue;
    const parsed = parseJsonObject(l.text);
    if ('error' in parsed) {
      report.skip(file, l.lineNumber, parsed.error);
      continue;
    }
    try {
      if (!str(parsed.value, 'scenario_id')) skipLine('scenario_id: empty');
      out.push({ value: parsed.value, line: l.lineNumber });
    } catch (e) {
      if (!(e instanceof SkipLine)) throw e;
      report.skip(file, l.lineNumber, e.message);
    }
  }
  return out;
}
