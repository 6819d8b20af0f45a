import path from 'node:path';
import type { Command } from 'commander';
import { AppError } from '../../shared/errors';
import { fleetExport } from '../../core/fleet/fleet';
import { assignAgentIds, discoverWorkspaces, isSkipped, openMember, type SkippedWorkspace } from '../../core/fleet/workspaces';
import { ANALYTICS_TABLES, exportTables, prepareTablesDir, type AnalyticsTable } from '../../core/parquet/tables';
import { EXPORTER_VERSION } from '../../core/parquet/trainingRows';
import type { OpenedDatabase } from '../../core/db/connection';
import { action, printJson } from '../context';

function ratio(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 1)) throw new AppError('Invalid', `--train-split must be a number above 0 and at most 1 (got ${value})`);
  return n;
}

function tableList(value: string): AnalyticsTable[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of names) {
    if (!(ANALYTICS_TABLES as readonly string[]).includes(n))
      throw new AppError('Invalid', `--tables: unknown table ${n} (known: ${ANALYTICS_TABLES.join(', ')})`);
  }
  return names as AnalyticsTable[];
}

function registerFleetExport(program: Command): void {
  program
    .command('fleet')
    .description('work across many workspaces (one per agent)')
    .command('export [workspaces...]')
    .description('write the curated samples of many workspaces as one hive-partitioned Parquet dataset (incremental)')
    .option('--root <dir>', 'export every workspace found below this folder')
    .requiredOption('-o, --out <dir>', 'the fleet dataset folder (created; a later run adds only what is new)')
    .option('--train-split <share>', 'share of sessions in train (default 0.8); a session keeps its split forever', ratio)
    .option('--include-pii', 'write personal data unredacted (off by default)')
    .option('--json', 'print the run summary as JSON')
    .action(action(fleetExportCommand));
}

function openAll(dirs: string[]): { opened: { db: OpenedDatabase['db']; agent: string }[]; skipped: SkippedWorkspace[]; close(): void } {
  const opened: { db: OpenedDatabase['db']; agent: string }[] = [];
  const skipped: SkippedWorkspace[] = [];
  for (const m of assignAgentIds(dirs)) {
    const o = openMember(m.dir);
    if (isSkipped(o)) skipped.push(o);
    else opened.push({ db: o.db, agent: m.agent });
  }
  return { opened, skipped, close: () => opened.forEach((o) => o.db.close()) };
}

function registerExportTables(program: Command): void {
  program
    .command('export-tables [workspaces...]')
    .description('write sessions, turns, decisions, writes, corrections and samples as Parquet, one folder per table, partitioned by day')
    .option('-w, --workspace <dir>', 'one workspace (default: current directory when no other is given)')
    .option('--root <dir>', 'every workspace found below this folder (each row names its agent)')
    .option('--format <format>', 'output format (parquet)', 'parquet')
    .requiredOption('-o, --out <dir>', 'output folder')
    .option('--tables <list>', `comma-separated subset of ${ANALYTICS_TABLES.join(', ')}`, tableList)
    .option('--include-pii', 'keep free text unredacted (off by default)')
    .option('--overwrite', 'replace tables already exported into the output folder')
    .option('--json', 'print the summary as JSON')
    .action(action(exportTablesCommand));
}

export function register(program: Command): void {
  registerFleetExport(program);
  registerExportTables(program);
}

async function fleetExportCommand(workspaces: string[], opts: Record<string, unknown>): Promise<void> {
  const result = await fleetExport({
    root: opts.root as string | undefined,
    workspaces,
    outDir: opts.out as string,
    trainSplit: opts.trainSplit as number | undefined,
    includePii: Boolean(opts.includePii),
  });
  if (opts.json) return printJson(result);
  const lines = result.members.map(
    (m) => `  ${m.agent}: +${m.added} (${m.train} train, ${m.validation} validation, ${m.folded} folded as duplicates)`,
  );
  for (const s of result.skipped) lines.push(`  skipped ${s.dir}: ${s.kind}: ${s.reason}`);
  process.stdout.write(`Fleet export run ${result.runId} into ${result.outDir}: ${result.added} new rows\n${lines.join('\n')}\n`);
  if (result.skipped.length) process.exitCode = 3;
}

async function exportTablesCommand(workspaces: string[], opts: Record<string, unknown>): Promise<void> {
  if (opts.format !== 'parquet') throw new AppError('Invalid', `--format: only parquet is supported (got ${String(opts.format)})`);
  const dirs = [
    ...(opts.root ? discoverWorkspaces(opts.root as string) : []),
    ...workspaces,
    ...(opts.workspace ? [opts.workspace as string] : []),
  ];
  if (!dirs.length) dirs.push(process.cwd());
  const tables = (opts.tables as AnalyticsTable[] | undefined) ?? [...ANALYTICS_TABLES];
  const outDir = path.resolve(opts.out as string);
  prepareTablesDir(outDir, tables, Boolean(opts.overwrite));
  const all = openAll([...new Set(dirs.map((d) => path.resolve(d)))].sort());
  try {
    const summary = exportTables(all.opened, {
      outDir,
      tables,
      includePii: Boolean(opts.includePii),
      metadata: { exporter: EXPORTER_VERSION },
    });
    if (opts.json) return printJson({ outDir, tables: summary, skipped: all.skipped });
    const lines = summary.map((t) => `  ${t.table}: ${t.rows} rows in ${t.files.length} files`);
    for (const s of all.skipped) lines.push(`  skipped ${s.dir}: ${s.kind}: ${s.reason}`);
    process.stdout.write(`Tables written to ${outDir}\n${lines.join('\n')}\n`);
  } finally {
    all.close();
  }
}
