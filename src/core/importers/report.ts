import path from 'node:path';
import type { ImporterKind, ImportReport } from '../../shared/contract';

const MAX_LISTED_SKIPS = 1000;

export class ReportBuilder {
  readonly report: ImportReport;
  private readonly t0 = performance.now();

  constructor(importer: ImporterKind, source: string, startedAt: number) {
    this.report = {
      importer,
      source,
      startedAt,
      finishedAt: startedAt,
      elapsedMs: 0,
      files: [],
      inserted: {},
      alreadyPresent: 0,
      linesUnderstood: 0,
      skipped: [],
      skippedCount: 0,
      pending: [],
      ignored: {},
      notes: [],
      status: 'ok',
      summary: '',
    };
  }

  count(table: string, n = 1): void {
    if (n <= 0) return;
    this.report.inserted[table] = (this.report.inserted[table] ?? 0) + n;
  }

  /** Records the outcome of an INSERT OR IGNORE: a row added or a row already there. */
  inserted(table: string, changes: number): boolean {
    if (changes > 0) this.count(table, changes);
    else this.report.alreadyPresent++;
    return changes > 0;
  }

  skip(file: string, line: number, reason: string): void {
    this.report.skippedCount++;
    if (this.report.skipped.length < MAX_LISTED_SKIPS) this.report.skipped.push({ file, line, reason });
  }

  ignore(kind: string, n = 1): void {
    this.report.ignored[kind] = (this.report.ignored[kind] ?? 0) + n;
  }

  note(text: string): void {
    if (!this.report.notes.includes(text)) this.report.notes.push(text);
  }

  finish(finishedAt: number): ImportReport {
    const r = this.report;
    r.finishedAt = Math.max(finishedAt, r.startedAt);
    r.elapsedMs = Math.round(performance.now() - this.t0);
    const added = Object.values(r.inserted).reduce((a, b) => a + b, 0);
    if (r.linesUnderstood === 0 && (r.skippedCount > 0 || r.files.length === 0)) r.status = 'failed';
    else if (r.skippedCount > 0) r.status = 'partial';
    else if (added === 0) r.status = 'nothing_new';
    else r.status = 'ok';
    r.summary = summarize(r);
    return r;
  }
}

const LABELS: Record<string, [string, string]> = {
  sessions: ['conversation', 'conversations'],
  conversation_turns: ['turn', 'turns'],
  conversation_contexts: ['context message', 'context messages'],
  memory_gate_decisions: ['memory_gate decision', 'memory_gate decisions'],
  write_guardian_audit: ['write_guardian outcome', 'write_guardian outcomes'],
  dataset_samples: ['gold sample', 'gold samples'],
  session_aliases: ['session key link', 'session key links'],
  guardian_log_lines: ['audit-log line', 'audit-log lines'],
  file_snapshots: ['memory file baseline', 'memory file baselines'],
  eval_scenario_versions: ['scenario version label', 'scenario version labels'],
  eval_runs: ['model run', 'model runs'],
  eval_results: ['scenario result', 'scenario results'],
  daily_notes: ['daily note', 'daily notes'],
  memory_gate_failures: ['failed memory_gate run', 'failed memory_gate runs'],
  managed_facts: ['managed fact', 'managed facts'],
};

const plural = (n: number, table: string) => {
  const [one, many] = LABELS[table] ?? [table, table];
  return `${n} ${n === 1 ? one : many}`;
};

/** A few sentences a curator can read without knowing the schema. */
export function summarize(r: ImportReport): string {
  const what = (
    {
      'reflection-logs': 'Reflection plugin logs',
      openclaw: 'OpenClaw transcripts',
      evals: 'eval sets',
      'daily-notes': 'daily notes',
    } as const
  )[r.importer];
  const fileCount = `${r.files.length} file${r.files.length === 1 ? '' : 's'}`;
  const parts: string[] = [];
  if (r.status === 'failed') {
    parts.push(
      r.files.length === 0
        ? `Nothing was imported: no ${what.toLowerCase()} were found at ${r.source}.`
        : `Nothing could be read from ${fileCount} of ${what}: every line was damaged or of an unknown kind.`,
    );
  } else {
    const tables =
      r.importer === 'evals'
        ? ['dataset_samples', 'conversation_turns', 'eval_runs']
        : r.importer === 'daily-notes'
          ? ['daily_notes']
          : ['sessions', 'conversation_turns', 'memory_gate_decisions', 'memory_gate_failures', 'write_guardian_audit', 'managed_facts'];
    const main = tables.filter((t) => r.inserted[t]).map((t) => plural(r.inserted[t] ?? 0, t));
    parts.push(
      main.length
        ? `Imported ${main.join(', ')} from ${fileCount} of ${what}.`
        : `Read ${fileCount} of ${what}: nothing new to import${r.alreadyPresent ? ' (everything was already in the workbench)' : ''}.`,
    );
  }
  const ignored = Object.entries(r.ignored).map(([k, n]) => `${n} ${k}`);
  if (ignored.length) parts.push(`Left out on purpose: ${ignored.join(', ')}.`);
  const first = r.skipped[0];
  if (r.skippedCount && first) {
    parts.push(
      `${r.skippedCount} line${r.skippedCount === 1 ? ' was' : 's were'} skipped because ${r.skippedCount === 1 ? 'it' : 'they'} could not be used ` +
        `(first: ${path.basename(first.file)}:${first.line}, ${first.reason}).`,
    );
  }
  if (r.pending.length)
    parts.push(`${r.pending.length} unfinished last line${r.pending.length === 1 ? ' is' : 's are'} left for the next import.`);
  parts.push(...r.notes);
  return parts.join(' ');
}
