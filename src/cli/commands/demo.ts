import path from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { generateDemoWorkspace } from '../../core/demo';
import { action, printJson } from '../context';
import { int } from './gate';

export function register(program: Command): void {
  program
    .command('demo <dir>')
    .description(
      'create a demo workspace: memory files, English and Chinese conversations, decisions and writes (deterministic for a seed)',
    )
    .option('--sessions <n>', 'number of sessions (default 40)', int('--sessions'))
    .option('--seed <seed>', 'seed: the same seed makes the same workspace (default 1)')
    .option('--turns-per-session <n>', 'turns in each session (default: 4 to 20 at random)', int('--turns-per-session'))
    .option('--context-window <n>', 'messages in each context window (default 6)', int('--context-window'))
    .option('--json', 'print the summary as JSON')
    .action(
      action(async (dir: string, opts: Record<string, unknown>) => {
        const showBar = Boolean(process.stderr.isTTY) && !opts.json;
        const bar = new cliProgress.SingleBar(
          { format: 'demo [{bar}] {value}/{total} turns', stream: process.stderr },
          cliProgress.Presets.shades_classic,
        );
        let started = false;
        const summary = generateDemoWorkspace(path.resolve(dir), {
          sessions: opts.sessions as number | undefined,
          seed: opts.seed as string | undefined,
          turnsPerSession: opts.turnsPerSession as number | undefined,
          contextWindow: opts.contextWindow as number | undefined,
          progress: showBar
            ? (done, total) => {
                if (total < 20_000) return;
                if (!started) bar.start(total, 0);
                started = true;
                bar.update(done);
              }
            : undefined,
        });
        if (started) bar.stop();
        if (opts.json) return printJson(summary);
        const w = summary.writes;
        process.stdout.write(
          `Demo workspace ready in ${summary.dir} (seed ${summary.seed}, ${summary.elapsedMs} ms)\n` +
            `  ${summary.sessions} sessions, ${summary.turns} turns, ${summary.contextItems} context messages, ${summary.decisions} decisions\n` +
            `  writes: ${w.written} written, ${w.refused} refused, ${w.failed} failed, ${w.skipped} skipped\n` +
            `Try:\n  reflection gate list --workspace ${summary.dir} -d UPDATE_USER -l 5\n  reflection search 早上偏好 --workspace ${summary.dir}\n`,
        );
      }),
    );
}
