import type { Command } from 'commander';

export function register(_program: Command): void {
  // commands of this area are added here
}
