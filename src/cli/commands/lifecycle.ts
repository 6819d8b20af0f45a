import readline from 'node:readline/promises';
import type { Command } from 'commander';
import { action, printJson, withDatabase, withWorkspace, workspaceDir, type GlobalOptions } from '../context';
import { backupInWorker, pruneInWorker, purgeInWorker, scheduledArchiveInWorker, scheduledPruneInWorker } from '../../api/jobs/internal';
import type { ServiceContext } from '../../core/context';
import { addExclusion, listExclusions, removeExclusion } from '../../core/lifecycle/exclusions';
import { MIN_RETENTION_DAYS, type PruneResult } from '../../core/lifecycle/retention';
import { exportConversations } from '../../core/lifecycle/archive';
import { startWorkspaceLifecycle, type WorkspaceLifecycle } from '../../core/lifecycle';
import type { Clock } from '../../core/lifecycle/state';
import { openWorkspaceDatabase } from '../../core/db/connection';
import { AppError } from '../../shared/errors';
import { parseTime } from '../../core/text/time';
import { getSetting, loadSettings, patchFor, saveSettings } from '../../core/lifecycle/settings';

function printWarnings(warnings: string[]): void {
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
}

function registerSettings(program: Command): void {
  const settings = program.command('settings').description('workspace settings (.openclaw-reflection/workbench.json)');

  withWorkspace(settings.command('get [key]').description('print all settings, or one dotted key (e.g. storage.retentionDays)')).action(
    action(settingsGet),
  );

  withWorkspace(
    settings.command('set <key> <value>').description('set one dotted key; the value is read as JSON when it parses (null unsets)'),
  ).action(action(settingsSet));

  withWorkspace(settings.command('validate').description('check the settings file; lists every ignored value')).action(
    action(settingsValidate),
  );
}

function registerBackup(program: Command): void {
  withWorkspace(
    program
      .command('backup')
      .description('consistent copy of the workspace database (SQLite online backup) while others keep writing')
      .option('-o, --output <file>', 'where to write it (default .openclaw-reflection/backups/reflection-<time>.db)')
      .option('--overwrite', 'replace an existing output file'),
  ).action(action(backupCommand));
}

function registerExclude(program: Command): void {
  const exclude = program
    .command('exclude')
    .description('opt-out: sessions, channel targets or accounts that are never collected or exported');

  withWorkspace(
    exclude
      .command('add')
      .description('exclude one session, channel target or account')
      .option('--session <key>', 'a session key (channel:discord:channel:123, or an OpenClaw key that maps to one)')
      .option('--target <channel:target>', 'a channel target, e.g. discord:channel:1478342210')
      .option('--account <id>', 'an account id')
      .option('--reason <text>', 'why (kept with the exclusion)'),
  ).action(action(excludeAdd));

  withWorkspace(exclude.command('list').description('list exclusions')).action(action(excludeList));

  withWorkspace(exclude.command('remove <id>').description('lift an exclusion (purged data does not come back)')).action(
    action(excludeRemove),
  );

  withWorkspace(
    exclude
      .command('purge <id>')
      .description('delete every recorded row of the excluded sessions from the database (irreversible)')
      .option('--yes', 'confirm the irreversible deletion')
      .option('--dry-run', 'show what would be deleted, delete nothing'),
  ).action(action(excludePurge));
}

function registerExportConversations(program: Command): void {
  withWorkspace(
    program
      .command('export-conversations')
      .description('write conversations (one turn with its decisions and writes per line) as JSONL; excluded sessions are left out')
      .option('--since <time>', 'from (inclusive): YYYY-MM-DD, ISO time, ms or an age like 7d')
      .option('--until <time>', 'to (exclusive): YYYY-MM-DD, ISO time, ms or an age like 7d')
      .option('-o, --output <file>', 'output file (default .openclaw-reflection/exports/conversations-<since>_<until>.jsonl)')
      .option('--overwrite', 'replace an existing output file'),
  ).action(action(exportConversationsCommand));
}

function printPrune(r: PruneResult): void {
  process.stdout.write(
    `${r.dryRun ? 'would delete' : 'deleted'} data older than ${r.days} days (before ${new Date(r.cutoff).toISOString()}):\n`,
  );
  const del = Object.entries(r.deleted);
  if (!del.length) process.stdout.write('  nothing\n');
  for (const [t, n] of del) process.stdout.write(`  ${t}: ${n}\n`);
  const kept = Object.entries(r.kept);
  if (kept.length) process.stdout.write('kept although old:\n');
  for (const [t, reasons] of kept) {
    for (const [why, n] of Object.entries(reasons)) process.stdout.write(`  ${t}: ${n} (${why})\n`);
  }
  if (r.dryRun && r.needsForce) {
    const copy =
      r.safeCopyUntil === null
        ? 'no backup or conversation archive exists'
        : `the last backup or archive holds data up to ${new Date(r.safeCopyUntil).toISOString()}`;
    process.stdout.write(`warning: this deletes data no copy holds (${copy}); make a backup first or add --force\n`);
  }
  if (!r.dryRun && r.freedPages) process.stdout.write(`incremental vacuum freed ${r.freedPages} pages\n`);
}

async function askYes(question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

function registerPrune(program: Command): void {
  withWorkspace(
    program
      .command('prune')
      .description(
        'delete conversations, decisions and audits older than the retention limit (irreversible; kept: every curated sample and what it references)',
      )
      .option('--days <n>', `age limit in whole days, at least ${MIN_RETENTION_DAYS} (default: storage.retentionDays)`, (v) => Number(v))
      .option('--dry-run', 'show what would go and why things are kept; delete nothing')
      .option('--yes', 'delete without asking (the preview is still printed)')
      .option('--force', 'also delete data that no backup or conversation archive holds yet'),
  ).action(action(pruneCommand));
}

function registerWatch(program: Command): void {
  withWorkspace(
    program
      .command('watch')
      .description(
        'follow a running plugin: its logs and the five memory files, live (Ctrl-C to stop); runs the scheduled archive too when enabled',
      )
      .option('--plugin-root <dir>', 'the plugin root holding logs/ (default: pluginRoot from the settings)')
      .option('--quiet', 'print only errors'),
  ).action(action(watchCommand));
}

export function register(program: Command): void {
  registerWatch(program);
  registerExportConversations(program);
  registerPrune(program);
  registerExclude(program);
  registerSettings(program);
  registerBackup(program);
}

function settingsGet(key: string | undefined, opts: GlobalOptions): void {
  const loaded = loadSettings(workspaceDir(opts));
  printWarnings(loaded.warnings);
  const value = key ? getSetting(loaded.settings, key) : loaded.settings;
  if (opts.json || typeof value === 'object') printJson(value ?? null);
  else process.stdout.write(`${value === undefined ? '' : String(value)}\n`);
}

function settingsSet(key: string, value: string, opts: GlobalOptions): void {
  const saved = saveSettings(workspaceDir(opts), patchFor(key, value));
  if (opts.json) printJson({ file: saved.file, value: getSetting(saved.settings, key) });
  else process.stdout.write(`${key} = ${JSON.stringify(getSetting(saved.settings, key) ?? null)} (${saved.file})\n`);
}

function settingsValidate(opts: GlobalOptions): void {
  const loaded = loadSettings(workspaceDir(opts));
  if (opts.json) printJson({ file: loaded.file, exists: loaded.exists, valid: loaded.warnings.length === 0, warnings: loaded.warnings });
  else if (!loaded.exists) process.stdout.write(`${loaded.file} does not exist: all defaults are in force\n`);
  else if (loaded.warnings.length === 0) process.stdout.write(`${loaded.file} is valid\n`);
  else printWarnings(loaded.warnings);
  if (loaded.warnings.length) process.exitCode = 2;
}

async function backupCommand(opts: GlobalOptions & { output?: string; overwrite?: boolean }): Promise<void> {
  // the page copy and its integrity check run in a job worker, as for backup.create
  const result = await withDatabase(opts, ({ db }, dir) =>
    backupInWorker({ db, workspaceDir: dir }, { output: opts.output, overwrite: opts.overwrite }),
  );
  if (opts.json) printJson(result);
  else
    process.stdout.write(
      `backup written to ${result.file} (${(result.bytes / 1024).toFixed(0)} KiB, ${result.pages} pages, integrity ${result.integrity}, ${result.elapsedMs.toFixed(0)} ms)\n`,
    );
}

async function excludeAdd(opts: GlobalOptions & { session?: string; target?: string; account?: string; reason?: string }): Promise<void> {
  const given = (['session', 'target', 'account'] as const).filter((k) => opts[k] !== undefined);
  const [kind] = given;
  if (given.length !== 1 || !kind) throw new AppError('Invalid', 'exclude add: give exactly one of --session, --target, --account');
  const ex = await withDatabase(opts, ({ db }, dir) =>
    addExclusion({ db, workspaceDir: dir }, { kind, value: opts[kind] as string, reason: opts.reason }),
  );
  if (opts.json) printJson(ex);
  else process.stdout.write(`excluded ${ex.kind} ${ex.value} (id ${ex.id}; matches ${ex.sessions} session(s) now)\n`);
}

async function excludeList(opts: GlobalOptions): Promise<void> {
  const list = await withDatabase(opts, ({ db }, dir) => listExclusions({ db, workspaceDir: dir }));
  if (opts.json) return printJson(list);
  if (!list.length) return void process.stdout.write('no exclusions\n');
  for (const e of list) {
    process.stdout.write(
      `${e.id}  ${e.kind.padEnd(7)}  ${e.value}  sessions=${e.sessions}  ${new Date(e.createdAt).toISOString()}${e.reason ? `  (${e.reason})` : ''}\n`,
    );
  }
}

async function excludeRemove(id: string, opts: GlobalOptions): Promise<void> {
  const ex = await withDatabase(opts, ({ db }, dir) => removeExclusion({ db, workspaceDir: dir }, id));
  if (opts.json) printJson(ex);
  else process.stdout.write(`removed exclusion ${ex.id} (${ex.kind} ${ex.value})\n`);
}

async function excludePurge(id: string, opts: GlobalOptions & { yes?: boolean; dryRun?: boolean }): Promise<void> {
  const result = await withDatabase(opts, ({ db }, dir) =>
    purgeInWorker({ db, workspaceDir: dir }, id, { confirm: opts.yes, dryRun: opts.dryRun }),
  );
  if (opts.json) return printJson(result);
  process.stdout.write(
    `${result.dryRun ? 'would delete' : 'deleted'} (${result.sessionIds.length} session(s) of ${result.exclusion.kind} ${result.exclusion.value}):\n`,
  );
  for (const [t, n] of Object.entries(result.deleted)) process.stdout.write(`  ${t}: ${n}\n`);
}

async function exportConversationsCommand(
  opts: GlobalOptions & { since?: string; until?: string; output?: string; overwrite?: boolean },
): Promise<void> {
  const since = parseTime(opts.since, '--since', Date.now());
  const until = parseTime(opts.until, '--until', Date.now());
  const r = await withDatabase(opts, ({ db }, dir) =>
    exportConversations({ db, workspaceDir: dir }, { since, until, output: opts.output, overwrite: opts.overwrite }),
  );
  if (opts.json) printJson(r);
  else process.stdout.write(`${r.turns} turns written to ${r.file} (${(r.bytes / 1024).toFixed(0)} KiB)\n`);
}

async function pruneCommand(opts: GlobalOptions & { days?: number; dryRun?: boolean; yes?: boolean; force?: boolean }): Promise<void> {
  await withDatabase(opts, async ({ db }, dir) => {
    const ctx = { db, workspaceDir: dir };
    // preview and deletion each run in a job worker, as retention.prune does
    const preview = await pruneInWorker(ctx, { days: opts.days, dryRun: true, force: opts.force });
    if (opts.dryRun || Object.keys(preview.deleted).length === 0) return opts.json ? printJson(preview) : printPrune(preview);
    if (!opts.json) printPrune(preview);
    if (!opts.yes) {
      if (!process.stdin.isTTY)
        throw new AppError('Invalid', 'prune is irreversible: pass --yes to confirm it (or run it in a terminal to be asked)');
      if (!(await askYes('Delete these rows for good? [y/N] '))) throw new AppError('Conflict', 'prune cancelled: nothing was deleted');
    }
    const r = await pruneInWorker(ctx, { days: preview.days, confirm: true, previewToken: preview.previewToken, force: opts.force });
    return opts.json ? printJson(r) : printPrune(r);
  });
}

/** Where `watch` reports: one event (JSON) or its line of text, and errors. */
export interface WatchReport {
  out: (o: Record<string, unknown>, text: string) => void;
  err: (text: string) => void;
}

/**
 * What `watch` runs: live capture on this thread, and the scheduled prune and archive in job workers as
 * the app runs them, so capture keeps going while a prune holds the write lock for seconds. `clock`
 * drives the schedules (tests); stopping it lets a prune begun end whole, as when the app quits.
 */
export function startWatch(
  ctx: ServiceContext,
  options: { pluginRoot?: string; clock?: Clock },
  { out, err }: WatchReport,
): WorkspaceLifecycle {
  return startWorkspaceLifecycle(ctx, {
    pluginRoot: options.pluginRoot,
    clock: options.clock,
    prune: scheduledPruneInWorker(),
    archive: scheduledArchiveInWorker,
    onEvent: (e) => {
      if (e.type === 'imported') {
        const n = Object.entries(e.report.inserted).filter(([, v]) => v > 0);
        if (n.length) out({ event: 'imported', inserted: e.report.inserted }, `imported ${n.map(([k, v]) => `${v} ${k}`).join(', ')}`);
      } else if (e.type === 'changed') out({ event: 'changed', file: e.file, auditId: e.auditId }, `${e.file} changed`);
      else if (e.type === 'attached')
        out({ event: 'attached', file: e.file, auditId: e.auditId }, `${e.file}: diff attached to write ${e.auditId}`);
      else err(`error: ${(e.error as Error)?.message ?? String(e.error)}`);
    },
    onArchiveError: (e) => err(`archive error: ${(e as Error).message}`),
    onPrune: (r) => {
      if (!Object.keys(r.deleted).length) return;
      const deleted = Object.entries(r.deleted).map(([k, v]) => `${v} ${k}`);
      out({ event: 'pruned', deleted: r.deleted }, `retention: deleted ${deleted.join(', ')}`);
    },
    onPruneError: (e) => err(`retention error: ${(e as Error).message}`),
  });
}

async function watchCommand(opts: GlobalOptions & { pluginRoot?: string; quiet?: boolean }): Promise<void> {
  const dir = workspaceDir(opts);
  const { db } = openWorkspaceDatabase(dir, { config: loadSettings(dir).settings.storage });
  const out = (o: Record<string, unknown>, text: string) => {
    if (opts.quiet) return;
    process.stdout.write(
      opts.json ? `${JSON.stringify({ at: new Date().toISOString(), ...o })}\n` : `${new Date().toISOString()} ${text}\n`,
    );
  };
  const err = (text: string) => void process.stderr.write(`${text}\n`);
  const lifecycle = startWatch({ db, workspaceDir: dir }, { pluginRoot: opts.pluginRoot }, { out, err });
  for (const w of lifecycle.warnings) process.stderr.write(`warning: ${w}\n`);
  if (!lifecycle.capture) {
    await lifecycle.stop();
    db.close();
    throw new AppError('Invalid', 'plugin-root: give --plugin-root or set pluginRoot in the settings');
  }
  out(
    { event: 'watching' },
    `watching ${opts.pluginRoot ?? lifecycle.settings.pluginRoot} for ${dir}${lifecycle.archive ? ' (scheduled archive on)' : ''}; Ctrl-C to stop`,
  );
  const keepAlive = setInterval(() => undefined, 1 << 30);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  clearInterval(keepAlive);
  await lifecycle.stop();
  db.close();
  out({ event: 'stopped' }, 'stopped');
}
