import type { Command } from 'commander';
import { action, printJson, withDatabase, withWorkspace, workspaceDir, type GlobalOptions } from '../context';
import { backupDatabase } from '../../main/services/lifecycle/backup';
import { getSetting, loadSettings, patchFor, saveSettings } from '../../main/services/lifecycle/settings';

function printWarnings(warnings: string[]): void {
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
}

function registerSettings(program: Command): void {
  const settings = program.command('settings').description('workspace settings (.openclaw-reflection/workbench.json)');

  withWorkspace(settings.command('get [key]').description('print all settings, or one dotted key (e.g. storage.retentionDays)')).action(
    action((key: string | undefined, opts: GlobalOptions) => {
      const loaded = loadSettings(workspaceDir(opts));
      printWarnings(loaded.warnings);
      const value = key ? getSetting(loaded.settings, key) : loaded.settings;
      if (opts.json || typeof value === 'object') printJson(value ?? null);
      else process.stdout.write(`${value === undefined ? '' : String(value)}\n`);
    }),
  );

  withWorkspace(settings.command('set <key> <value>').description('set one dotted key; the value is read as JSON when it parses (null unsets)')).action(
    action((key: string, value: string, opts: GlobalOptions) => {
      const saved = saveSettings(workspaceDir(opts), patchFor(key, value));
      if (opts.json) printJson({ file: saved.file, value: getSetting(saved.settings, key) });
      else process.stdout.write(`${key} = ${JSON.stringify(getSetting(saved.settings, key) ?? null)} (${saved.file})\n`);
    }),
  );

  withWorkspace(settings.command('validate').description('check the settings file; lists every ignored value')).action(
    action((opts: GlobalOptions) => {
      const loaded = loadSettings(workspaceDir(opts));
      if (opts.json) printJson({ file: loaded.file, exists: loaded.exists, valid: loaded.warnings.length === 0, warnings: loaded.warnings });
      else if (!loaded.exists) process.stdout.write(`${loaded.file} does not exist: all defaults are in force\n`);
      else if (loaded.warnings.length === 0) process.stdout.write(`${loaded.file} is valid\n`);
      else printWarnings(loaded.warnings);
      if (loaded.warnings.length) process.exitCode = 2;
    }),
  );
}

function registerBackup(program: Command): void {
  withWorkspace(
    program
      .command('backup')
      .description('consistent copy of the workspace database (SQLite online backup) while others keep writing')
      .option('-o, --output <file>', 'where to write it (default .openclaw-reflection/backups/reflection-<time>.db)')
      .option('--overwrite', 'replace an existing output file'),
  ).action(
    action(async (opts: GlobalOptions & { output?: string; overwrite?: boolean }) => {
      const result = await withDatabase(opts, ({ db }, dir) => backupDatabase({ db, workspaceDir: dir }, { output: opts.output, overwrite: opts.overwrite }));
      if (opts.json) printJson(result);
      else process.stdout.write(`backup written to ${result.file} (${(result.bytes / 1024).toFixed(0)} KiB, ${result.pages} pages, integrity ${result.integrity}, ${result.tookMs.toFixed(0)} ms)\n`);
    }),
  );
}

export function register(program: Command): void {
  registerSettings(program);
  registerBackup(program);
}
