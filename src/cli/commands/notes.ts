import type { Command } from 'commander';
import { listDailyNotes, searchDailyNotes } from '../../core/importers';
import { action, printJson, withDatabase, withWorkspace, type GlobalOptions } from '../context';
import { clean, int } from './gate';

type NotesOptions = GlobalOptions & { limit?: number; from?: string; to?: string };

/** OpenClaw's daily memory notes, once imported (`reflection import daily-notes`): read-only. */
export function register(program: Command): void {
  const notes = program.command('notes').description("OpenClaw's daily memory notes imported into the workspace (read-only)");
  withWorkspace(notes.command('search <text>').description('full-text search over the notes (Chinese works)'))
    .option('-l, --limit <n>', 'how many hits (default 20)', int('--limit'))
    .action(
      action(async (text: string, opts: NotesOptions) =>
        withDatabase(opts, ({ db }, dir) => {
          const hits = searchDailyNotes({ db, workspaceDir: dir }, text, opts.limit ?? 20);
          if (opts.json) return printJson(hits);
          if (!hits.length) process.stdout.write(`No daily note mentions "${clean(text)}".\n`);
          for (const h of hits) process.stdout.write(`${h.date}  ${clean(h.snippet.replace(/\s+/g, ' '))}\n`);
        }),
      ),
    );
  withWorkspace(notes.command('show <from> [to]').description('the notes of a day or a range of days (YYYY-MM-DD)')).action(
    action(async (from: string, to: string | undefined, opts: NotesOptions) =>
      withDatabase(opts, ({ db }, dir) => {
        const list = listDailyNotes({ db, workspaceDir: dir }, from, to ?? from);
        if (opts.json) return printJson(list);
        if (!list.length) process.stdout.write(`No daily notes from ${from}${to ? ` to ${to}` : ''}.\n`);
        for (const n of list) process.stdout.write(`== ${n.date} (${n.path})\n${clean(n.content, true)}\n`);
      }),
    ),
  );
}
