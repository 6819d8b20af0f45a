import path from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import Table from 'cli-table3';
import pc from 'picocolors';
import { action, printJson, withDatabase, withWorkspace, type GlobalOptions } from '../context';
import type { ServiceContext } from '../../core/context';
import { importDailyNotes, importEvals, importOpenClaw, importReflectionLogs } from '../../core/importers';
import type { ImportReport } from '../../shared/contract';

interface ImportOptions extends GlobalOptions {
  guardianLog?: string;
  pluginWorkspace?: string;
  maxLineMb?: string;
}

const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MB`;

/** A progress bar on a terminal only: piped output and --json stay clean. */
function progressFor(opts: ImportOptions): { progress?: ServiceContext['progress']; stop: () => void } {
  if (opts.json || !process.stderr.isTTY) return { stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { format: '{label} |{bar}| {percentage}% {done}/{size}', stream: process.stderr, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    progress: (done, total, label) => {
      const size = total ?? done;
      if (!started) {
        bar.start(Math.max(size, 1), 0, { label: label ?? 'importing', done: mb(0), size: mb(size) });
        started = true;
      }
      bar.setTotal(Math.max(size, 1));
      bar.update(done, { label: label ?? 'importing', done: mb(done), size: mb(size) });
    },
    stop: () => started && bar.stop(),
  };
}

export function printReport(r: ImportReport): void {
  const table = new Table({ head: ['table', 'rows added'] });
  for (const [t, n] of Object.entries(r.inserted)) table.push([t, String(n)]);
  if (Object.keys(r.inserted).length) process.stdout.write(`${table.toString()}\n`);
  if (r.skippedCount) {
    process.stdout.write(pc.yellow(`Skipped ${r.skippedCount} line(s):\n`));
    for (const s of r.skipped.slice(0, 50))
      process.stdout.write(`  ${path.relative(process.cwd(), s.file) || s.file}:${s.line}  ${s.reason}\n`);
    if (r.skippedCount > 50) process.stdout.write(`  ... and ${r.skippedCount - 50} more (see --json)\n`);
  }
  for (const p of r.pending) process.stdout.write(pc.dim(`Left for next time: ${p.file}:${p.line}  ${p.reason}\n`));
  const color = r.status === 'failed' ? pc.red : r.status === 'partial' ? pc.yellow : pc.green;
  process.stdout.write(`${color(r.summary)}\n${pc.dim(`(${r.linesUnderstood} lines read in ${(r.elapsedMs / 1000).toFixed(2)} s)`)}\n`);
}

async function run(opts: ImportOptions, fn: (ctx: ServiceContext) => Promise<ImportReport>): Promise<void> {
  await withDatabase(opts, async ({ db }, dir) => {
    const bar = progressFor(opts);
    let report: ImportReport;
    try {
      report = await fn({ db, workspaceDir: dir, progress: bar.progress });
    } finally {
      bar.stop();
    }
    if (opts.json) printJson(report);
    else printReport(report);
    // Non-zero only when nothing at all could be read: partial imports are a success with a list of skips.
    if (report.status === 'failed') process.exitCode = 1;
  });
}

const maxLineBytes = (opts: ImportOptions) => (opts.maxLineMb ? Math.max(1, Number(opts.maxLineMb)) * 1024 * 1024 : undefined);

export function register(program: Command): void {
  const cmd = program
    .command('import')
    .description('Import what the plugin and OpenClaw already recorded (run again to add only what is new)');

  withWorkspace(
    cmd
      .command('reflection-logs <source>')
      .description('Reflection plugin logs: <pluginRoot>, its logs/ folder, or one reflection-YYYY-MM-DD.log')
      .option('--guardian-log <file>', 'write-guardian.log.jsonl (default: <workspace>/.openclaw-reflection/write-guardian.log.jsonl)')
      .option(
        '--plugin-workspace <dir>',
        'OpenClaw workspace holding .openclaw-reflection/write-guardian.log.jsonl, when it is not --workspace',
      )
      .option('--max-line-mb <n>', 'skip lines longer than this (default 16)'),
  ).action(
    action(async (source: string, opts: ImportOptions) =>
      run(opts, (ctx) =>
        importReflectionLogs(ctx, {
          source: path.resolve(source),
          workspace: opts.pluginWorkspace ? path.resolve(opts.pluginWorkspace) : undefined,
          guardianLog: opts.guardianLog ? path.resolve(opts.guardianLog) : undefined,
          maxLineBytes: maxLineBytes(opts),
        }),
      ),
    ),
  );

  withWorkspace(
    cmd
      .command('openclaw <source>')
      .description(
        'OpenClaw sessions: a state dir (file store and per-agent SQLite store), an agents/<id>/sessions dir, an openclaw-agent.sqlite, or one transcript',
      )
      .option('--max-line-mb <n>', 'skip lines longer than this (default 16)'),
  ).action(
    action(async (source: string, opts: ImportOptions) =>
      run(opts, (ctx) => importOpenClaw(ctx, { source: path.resolve(source), maxLineBytes: maxLineBytes(opts) })),
    ),
  );

  withWorkspace(
    cmd
      .command('evals <source>')
      .description(
        "The plugin's labelled eval sets as gold samples, every version (current, v1-research, v2) in one run, and its model runs (evals/results/*.json): a plugin root, evals/datasets, one task folder (evals/datasets/memory-gate) or results files",
      ),
  ).action(action(async (source: string, opts: ImportOptions) => run(opts, (ctx) => importEvals(ctx, { source: path.resolve(source) }))));

  withWorkspace(
    cmd
      .command('daily-notes [source]')
      .description(
        "OpenClaw's daily memory notes (memory/YYYY-MM-DD.md) as read-only documents: an OpenClaw workspace (default: --workspace), its memory/ folder, or one note",
      ),
  ).action(
    action(async (source: string | undefined, opts: ImportOptions) =>
      run(opts, (ctx) => importDailyNotes(ctx, { source: path.resolve(source ?? ctx.workspaceDir) })),
    ),
  );
}
