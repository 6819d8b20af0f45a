import type { Command } from 'commander';
import pc from 'picocolors';
import { AppError } from '../../shared/errors';
import type { SearchHit, SearchHitKind } from '../../shared/contract/records';
import { search } from '../../core/search';
import { action, printJson, withDatabase, withWorkspace } from '../context';
import { clean, clip, int, table, time, type Opts } from './gate';

const SCOPES: Record<string, SearchHitKind[]> = { all: [], turns: ['turn'], decisions: ['decision'] };

/** The hit's text for a terminal, matches underlined (only when the terminal takes colour). */
function highlighted(h: SearchHit): string {
  let out = '';
  let at = 0;
  for (const [start, end] of h.matches) {
    out += clean(h.text.slice(at, start)) + pc.bold(pc.underline(clean(h.text.slice(start, end))));
    at = end;
  }
  return out + clean(h.text.slice(at));
}

export function register(program: Command): void {
  withWorkspace(
    program.command('search <query>').description('full-text search over conversation turns, reasons and candidate facts (Chinese works)'),
  )
    .option('-l, --limit <n>', 'how many hits (default 20)', int('--limit'))
    .option('--scope <scope>', 'all, turns or decisions', 'all')
    .option('-S, --session <sessionKey>', 'only this session')
    .action(
      action(async (query: string, opts: Opts) =>
        withDatabase(opts, ({ db }, dir) => {
          const kinds = SCOPES[String(opts.scope)];
          if (!kinds) throw new AppError('Invalid', `--scope: expected all, turns or decisions, got ${String(opts.scope)}`);
          const result = search(
            { db, workspaceDir: dir },
            { text: query, limit: (opts.limit as number | undefined) ?? 20, kinds, sessionId: opts.session as string | undefined },
          );
          if (opts.json) return printJson(result);
          if (!result.items.length) {
            process.stdout.write(
              `No matches for "${clean(query)}"${result.mode === 'scan' ? ` in the newest ${result.scanned} rows` : ''}.\n`,
            );
            return;
          }
          const t = table({
            head: ['Time (UTC)', 'Session', 'Where', 'Id', 'Match'],
            colWidths: [21, 30, 16, 28, 70],
            wordWrap: true,
            wrapOnWordBoundary: false,
          });
          for (const h of result.items) {
            t.push([
              time(h.createdAt),
              clip(h.sessionId, 28),
              `${h.kind === 'turn' ? 'turn' : `${h.decision}`}\n${h.field}`,
              h.id,
              highlighted(h),
            ]);
          }
          process.stdout.write(
            `${t.toString()}\n${result.items.length} hit(s)${result.mode === 'scan' ? ` (short query: looked at the newest ${result.scanned} rows)` : ''}\n`,
          );
        }),
      ),
    );
}
