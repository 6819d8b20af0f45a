// Curators of a shared workspace: `curator add <name>` prints the token that curator opens browser
// mode with (shown once: only its hash is stored); `list` and `revoke <name>` manage them.
import type { Command } from 'commander';
import { AppError } from '../../shared/errors';
import { addCurator, listCurators, revokeCurator, type CuratorRole } from '../../core/curation/curators';
import { action, printJson, withDatabase, withWorkspace, type GlobalOptions } from '../context';
import { table, time } from './gate';

type CuratorOptions = GlobalOptions & { lead?: boolean; as?: string };

export function register(program: Command): void {
  const curator = program.command('curator').description('curators of a shared workspace and their browser-mode tokens');
  withWorkspace(curator.command('add <name>').description('add a curator and print their token (shown once)'))
    .option('--lead', 'a lead: adjudicates second-pass disagreements')
    .action(
      action(async (name: string, opts: CuratorOptions) =>
        withDatabase(opts, ({ db }, dir) => {
          const role: CuratorRole = opts.lead ? 'lead' : 'curator';
          const { curator: c, token } = addCurator({ db, workspaceDir: dir, actor: opts.as }, { name, role });
          if (opts.json) return printJson({ ...c, token });
          process.stdout.write(
            `Curator ${c.name} (${c.role}) added. Their token, shown only now:\n\n  ${token}\n\n` +
              'They open the URL printed by `reflection open --web` with ?token=<their token> (it is exchanged for a cookie).\n',
          );
        }),
      ),
    );
  withWorkspace(curator.command('list').description('curators, their roles and whether their token is active')).action(
    action(async (opts: CuratorOptions) =>
      withDatabase(opts, ({ db }, dir) => {
        const list = listCurators({ db, workspaceDir: dir });
        if (opts.json) return printJson(list);
        if (!list.length) return void process.stdout.write('No curators yet: add one with `reflection curator add <name>`.\n');
        const t = table({ head: ['Name', 'Role', 'Token', 'Added (UTC)', 'Revoked (UTC)'] });
        for (const c of list) {
          t.push([
            c.name,
            c.role,
            c.isLocal ? 'local (desktop)' : c.hasToken ? 'active' : 'revoked',
            time(c.createdAt),
            c.revokedAt ? time(c.revokedAt) : '',
          ]);
        }
        process.stdout.write(`${t.toString()}\n`);
      }),
    ),
  );
  withWorkspace(curator.command('revoke <name>').description("revoke a curator's token: their next request is refused")).action(
    action(async (name: string, opts: CuratorOptions) =>
      withDatabase(opts, ({ db }, dir) => {
        if (!name.trim()) throw new AppError('Invalid', 'curator revoke: a name is required');
        const c = revokeCurator({ db, workspaceDir: dir }, name);
        if (opts.json) return printJson(c);
        process.stdout.write(
          `Curator ${c.name} revoked: their token no longer opens the workbench. Their past actions stay attributed to them.\n`,
        );
      }),
    ),
  );
}
