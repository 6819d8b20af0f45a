import type { Command } from 'commander';
import { action, printJson, withWorkspace, workspaceDir, type GlobalOptions } from '../context';
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

export function register(program: Command): void {
  registerSettings(program);
}
