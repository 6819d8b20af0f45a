import path from 'node:path';
import type { Command } from 'commander';
import { action } from '../context';
import { openInitialWorkspace } from '../../api/firstRun';
import { defaultStateDir } from '../../core/lifecycle/stateDir';
import { createAppRuntime } from '../../api/runtime';
import { startWebServer } from '../../web/server';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

// `reflection open [workspace] --web [--port N]`: browser mode on 127.0.0.1 with a session token.
export function register(program: Command): void {
  program
    .command('open [workspace]')
    .description('open a workspace in the workbench (browser mode with --web; the desktop app is `npm start`)')
    .option('-w, --workspace <dir>', 'workspace folder (same as the argument)')
    .option('--web', 'serve the workbench to a browser on 127.0.0.1')
    .option('--port <n>', 'port (default: a free one)', (v) => Number.parseInt(v, 10))
    .option('--renderer <dir>', 'built renderer folder (default: out/renderer)')
    .option(
      '--allow-dir <dir>',
      'a folder the page may name paths in (imports, workspaces); repeatable; default: the workspace and its plugin root',
      (v: string, prev: string[] = []) => [...prev, path.resolve(v)],
    )
    .action(
      action(
        async (
          positional: string | undefined,
          opts: { workspace?: string; web?: boolean; port?: number; renderer?: string; allowDir?: string[] },
        ) => {
          const workspace = positional ?? opts.workspace;
          if (!opts.web) {
            process.stderr.write('The desktop app starts with `npm start`. Use `reflection open [workspace] --web` for browser mode.\n');
            process.exitCode = 2;
            return;
          }
          const stateDir = defaultStateDir();
          const runtime = createAppRuntime({ mode: 'web', stateDir, allowDirs: opts.allowDir });
          const dir = openInitialWorkspace(runtime.session, stateDir, workspace ? path.resolve(workspace) : null);
          const server = await startWebServer({
            runtime,
            rendererDir: opts.renderer ? path.resolve(opts.renderer) : path.join(repoRoot, 'out', 'renderer'),
            port: opts.port,
          });
          // Without a workspace argument the first run opens a generated demo: say so, and where it lives.
          const demo = runtime.session.current().isDemo
            ? `No workspace given, so this is a generated demo workspace (invented sessions and memory files) at:\n    ${dir}\n` +
              'Open your own with `reflection open <workspace> --web` (or `npm run web -- <workspace>`).\n\n'
            : '';
          process.stdout.write(
            `${demo}Reflection Workbench: ${dir}\n\n    ${server.url}\n\nOpen the URL above in a browser. Its token is exchanged once for a session cookie ` +
              'and leaves the address bar; it changes on every start. Ctrl+C stops.\n',
          );
          const stop = () => {
            void server
              .close()
              .then(() => runtime.close())
              .finally(() => process.exit(0));
          };
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        },
      ),
    );
}
