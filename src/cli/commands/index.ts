import type { Command } from 'commander';
import * as curator from './curator';
import * as dataset from './dataset';
import * as demo from './demo';
import * as fleet from './fleet';
import * as gate from './gate';
import * as guardian from './guardian';
import * as health from './health';
import * as importCmd from './import';
import * as lifecycle from './lifecycle';
import * as notes from './notes';
import * as open from './open';
import * as search from './search';

// Each area registers its own subcommands in its own file.
export function registerCommands(program: Command): void {
  for (const m of [demo, gate, search, guardian, importCmd, dataset, open, lifecycle, fleet, curator, health, notes]) m.register(program);
}
