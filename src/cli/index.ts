import { Command } from 'commander';
import { registerCommands } from './commands';

const program = new Command();
program
  .name('reflection')
  .description('Reflection Workbench: record, inspect, undo and curate what an OpenClaw agent remembers.')
  .showHelpAfterError();
registerCommands(program);
program.parseAsync(process.argv).catch((e) => {
  process.stderr.write(`error: ${(e as Error).message}\n`);
  process.exitCode = 1;
});
