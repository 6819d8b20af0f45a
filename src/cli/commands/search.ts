import type { Command } from 'commander';
import pc from 'picocolors';
import { AppError } from '../../shared/errors';
import { search, type SearchScope, type Snippet } from '../../core/search';
import { action, printJson, withDatabase, withWorkspace, type GlobalOptions } from '../context';
import { clean, clip, int, table, time } from './gate';

type Opts = GlobalOptions & Record<string, unknown>;

/** The snippet as terminal text, matches underlined (only when the terminal takes colour). */
function highlighted(s: Snippet): string {
  let out = s.truncatedStart ? '…' : '';
  let at = 0;
  for (const m of s.matches) {
    out += clean(s.text.slice(at, m.start)) + pc.bold(pc.underline(clean(s.text.slice(m.start, m.end))));
    at = m.end;
  }
  return out + clean(s.text.slice(at)) + (s.truncatedEnd ? '…' : '');
}

export function register(program: Command): void {
  withWorkspace(program.command('search <query>').description('full-text search over conversation turns, reasons and candidate facts (Chinese works)'))
    .option('-l, --limit <n>', 'how many hits (default 20)', int('--limit'))
    .option('--scope <scope>', 'all, turns or decisions', 'all')
    .option('-S, --session <sessionKey>', 'only this session')
    .action(
      action(async (query: string, opts: Opts) =>
        withDatabase(opts, ({ db }, dir) => {
          const scope = String(opts.scope) as SearchScope;
          if (!['all', 'turns', 'decisions'].includes(scope)) throw new AppError('Invalid', `--scope: expected all, turns or decisions, got ${scope}`);
          const result = search({ db, workspaceDir: dir }, { query, limit: (opts.limit as number | undefined) ?? 20, scope, sessionId: opts.session as string | undefined });
          if (opts.json) return printJson(result);
          if (!result.hits.length) {
            process.stdout.write(`No matches for "${clean(query)}"${result.mode === 'scan' ? ` in the newest ${result.scanned} rows` : ''}.\n`);
            return;
          }
          const t = table({ head: ['Time (UTC)', 'Session', 'Where', 'Id', 'Match'], colWidths: [21, 30, 16, 28, 70], wordWrap: true, wrapOnWordBoundary: false });
          for (const h of result.hits) {
            const where = h.kind === 'turn' ? 'turn' : `${h.decision}`;
            for (const s of h.snippets.length ? h.snippets : [{ field: '', text: '', matches: [], truncatedStart: false, truncatedEnd: false }]) {
              t.push([time(h.createdAt), clip(h.sessionId, 28), `${where}${s.field ? `\n${s.field}` : ''}`, h.id, highlighted(s as Snippet)]);
            }
          }
          process.stdout.write(`${t.toString()}\n${result.hits.length} hit(s)${result.mode === 'scan' ? ` (short query: looked at the newest ${result.scanned} rows)` : ''}\n`);
        }),
      ),
    );
}
