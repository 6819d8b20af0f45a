import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import Table from 'cli-table3';
import pc from 'picocolors';
import { AppError } from '../../shared/errors';
import type { ServiceContext } from '../../core/context';
import {
  auditDiff,
  correctWrite,
  exportAudits,
  fileHistory,
  listAudits,
  listCorrections,
  listFutureCorrections,
  pruneSnapshots,
  reconcilePending,
  recordExternalChanges,
  retryWrite,
  rollbackSession,
  rollbackWrite,
  showAudit,
} from '../../core/guardian';
import type { AuditExportFormat } from '../../core/guardian';
import { refuseExisting } from '../../core/lifecycle/outputFiles';
import { action, printJson, withDatabase, withWorkspace } from '../context';
import type { Opts } from './gate';

const time = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
const short = (s: string | null | undefined, n = 60) => (s ? (s.length > n ? `${s.slice(0, n - 1)}…` : s).replace(/\s+/g, ' ') : '');
const int = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new AppError('Invalid', `${v}: expected a whole number`);
  return n;
};

/** Colours a unified diff when writing to a terminal. */
export function colorDiff(diff: string, color = Boolean(process.stdout.isTTY)): string {
  const c = pc.createColors(color);
  return diff
    .split('\n')
    .map((l) =>
      l.startsWith('+++') || l.startsWith('---')
        ? c.bold(l)
        : l.startsWith('+')
          ? c.green(l)
          : l.startsWith('-')
            ? c.red(l)
            : l.startsWith('@@')
              ? c.cyan(l)
              : l,
    )
    .join('\n');
}

/** A table; plain (no ANSI colours) when stdout is not a terminal. */
const table = (head: string[]) => new Table({ head, ...(process.stdout.isTTY ? {} : { style: { head: [], border: [] } }) });

function context(db: ServiceContext['db'], dir: string, by?: unknown): ServiceContext {
  return { db, workspaceDir: dir, actor: typeof by === 'string' && by ? by : process.env.USER || 'curator' };
}

/** Before changing files: finish interrupted operations and record edits made outside the workbench. */
async function prepare(ctx: ServiceContext): Promise<void> {
  for (const m of await reconcilePending(ctx)) process.stderr.write(`${m}\n`);
  const ext = recordExternalChanges(ctx);
  if (ext.length)
    process.stderr.write(`recorded ${ext.length} external change(s): ${ext.map((e) => `${e.fileName} (${e.kind})`).join(', ')}\n`);
}

export function register(program: Command): void {
  const g = program.command('guardian').description('write_guardian audits: inspect, diff, roll back, retry and correct memory writes');
  registerInspection(g);
  registerRepairs(g);
}

/** The read-only subcommands: list, show, diff, history, export. */
function registerInspection(g: Command): void {
  withWorkspace(g.command('list [sessionKey]').description('list audits, newest first'))
    .option('-l, --limit <n>', 'how many', int, 10)
    .option('-f, --file <file>', 'only this memory file')
    .option('-s, --status <status>', 'written | refused | failed | skipped | rolled_back')
    .option('--source <source>', 'plugin | external | rollback | retry')
    .option('--since <time>', 'from (epoch ms, ISO date or age like 7d)')
    .option('--until <time>', 'until (epoch ms, ISO date or age like 7d)')
    .option('-d, --with-diff', 'include each diff')
    .option('--cursor <cursor>', 'next page (from a previous --json output)')
    .action(action(guardianList));

  withWorkspace(g.command('show <auditId>').description('an audit with its decision, turn, diff, rollbacks and corrections')).action(
    action(guardianShow),
  );

  withWorkspace(g.command('diff <auditId>').description('the unified diff of one write (coloured on a terminal)')).action(
    action(guardianDiff),
  );

  withWorkspace(g.command('history').description('every version of one memory file: who changed it and why'))
    .requiredOption('-f, --file <file>', 'the memory file, e.g. USER.md')
    .option('-l, --limit <n>', 'how many versions', int, 20)
    .option('--cursor <cursor>', 'next page')
    .action(action(guardianHistory));

  withWorkspace(g.command('export').description('export audits (streamed)'))
    .option('--format <format>', 'json | csv | markdown', 'json')
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .option('--overwrite', 'replace an existing output file')
    .option('--include-content', 'include full before/after file content')
    .option('--include-pii', 'export personal data and secrets as recorded (by default they are replaced with placeholders)')
    .option('--session <key>', 'only this session')
    .option('-f, --file <file>', 'only this memory file')
    .option('-s, --status <status>', 'only this status')
    .option('--since <time>', 'from')
    .option('--until <time>', 'until')
    .action(action(guardianExport));
}

/** The subcommands that change files or records: rollback, retry, correct, corrections, prune-snapshots, reconcile. */
function registerRepairs(g: Command): void {
  withWorkspace(g.command('rollback [auditId]').description('undo a write (or, with --session, every write of a session, newest first)'))
    .option('--session <key>', 'roll back every write of this session')
    .option('--since <time>', 'with --session: from')
    .option('--until <time>', 'with --session: until')
    .option('--reason <text>', 'why (kept in the rollbacks table)')
    .option('--by <name>', 'who is rolling back (default: $USER)')
    .option('--dry-run', 'show the resulting file and diff; write nothing')
    .option('--force', 'restore the before-snapshot even if later edits conflict (the current content is kept as a backup snapshot)')
    .action(action(guardianRollback));

  withWorkspace(g.command('retry <auditId>').description('re-apply a write with a corrected fact, file or content'))
    .option('--fact <text>', 'the corrected fact (default: the correction or original fact)')
    .option('--file <file>', 'the corrected target file')
    .option('--content-file <path>', 'use this file as the complete new content')
    .option('--reason <text>', 'why')
    .option('--by <name>', 'who')
    .option('--dry-run', 'print the proposed content; write nothing')
    .action(action(guardianRetry));

  withWorkspace(g.command('correct <auditId>').description('record what write_guardian should have done'))
    .requiredOption('--status <status>', 'written | refused')
    .requiredOption('--reason <text>', 'why the decision was wrong')
    .option('--fact <text>', 'the corrected fact')
    .option('--file <file>', 'the corrected target file')
    .option('--apply-to-future', 'use this correction for similar later samples')
    .option('--pattern <text>', 'what later samples must resemble (default: the original fact)')
    .option('--by <name>', 'who')
    .action(action(guardianCorrect));

  withWorkspace(g.command('corrections').description('list behaviour corrections'))
    .option('--future', 'only apply-to-future corrections, in the form dataset collection matches against')
    .action(action(guardianCorrections));

  withWorkspace(g.command('prune-snapshots').description('keep at most N snapshots per file, deleting only unreferenced ones'))
    .option('--max <n>', 'maxSnapshotsPerFile (default: workbench.json, else 100)', int)
    .option('-f, --file <file>', 'only this file')
    .action(action(guardianPruneSnapshots));

  withWorkspace(
    g.command('reconcile').description('finish or cancel workbench writes a crash left unfinished, and record external edits'),
  ).action(action(guardianReconcile));
}

async function guardianList(sessionKey: string | undefined, opts: Opts): Promise<void> {
  await withDatabase(opts, ({ db }, dir) => {
    const page = listAudits(context(db, dir), {
      sessionId: sessionKey,
      limit: opts.limit as number,
      file: opts.file as string,
      status: opts.status as string,
      source: opts.source as string,
      since: opts.since as string,
      until: opts.until as string,
      withDiff: Boolean(opts.withDiff),
      cursor: opts.cursor as string,
    });
    if (opts.json) return printJson(page);
    const t = table(['id', 'time', 'file', 'status', 'source', 'lines +/-/~', 'fact / reason']);
    for (const a of page.items) {
      t.push([
        a.id,
        time(a.createdAt),
        a.targetFile,
        a.status,
        a.source,
        a.lineChanges ? `${a.lineChanges.added}/${a.lineChanges.removed}/${a.lineChanges.modified}` : '',
        short(a.candidateFact ?? a.reason),
      ]);
    }
    console.log(page.items.length ? t.toString() : 'no audits match');
    if (opts.withDiff) for (const a of page.items) if (a.diff) console.log(`\n${pc.bold(a.id)}\n${colorDiff(a.diff)}`);
    if (page.nextCursor) console.log(`more: --cursor ${page.nextCursor}`);
  });
}

async function guardianShow(auditId: string, opts: Opts): Promise<void> {
  await withDatabase(opts, ({ db }, dir) => {
    const d = showAudit(context(db, dir), auditId);
    if (opts.json) return printJson(d);
    const a = d.audit;
    console.log(`${pc.bold(a.id)}  ${a.targetFile}  ${a.status}  (${a.source})  ${time(a.createdAt)}`);
    if (a.sessionId) console.log(`session: ${a.sessionId}`);
    if (a.candidateFact) console.log(`fact: ${a.candidateFact}`);
    if (a.reason) console.log(`reason: ${a.reason}`);
    if (d.decision) console.log(`decision: ${d.decision.decision} — ${d.decision.reason} (${d.decision.model})`);
    if (d.turn)
      console.log(`turn #${d.turn.turnNumber}:\n  user: ${short(d.turn.userMessage, 200)}\n  agent: ${short(d.turn.agentReply, 200)}`);
    if (d.related) console.log(`related: ${d.related.id} (${d.related.source}, ${d.related.status})`);
    if (d.rollback)
      console.log(
        `rolled back ${time(d.rollback.rolledBackAt)} by ${d.rollback.rolledBackBy} (${d.rollback.mode}): ${d.rollback.reason}; rollback audit ${d.rollback.rollbackAuditId}`,
      );
    for (const f of d.followUps) console.log(`follow-up: ${f.id} (${f.source}, ${f.status}) ${short(f.reason)}`);
    for (const c of d.corrections)
      console.log(
        `correction ${c.id}: should be ${c.correctedStatus}${c.correctedCandidateFact ? ` "${c.correctedCandidateFact}"` : ''}${c.correctedTargetFile ? ` in ${c.correctedTargetFile}` : ''} — ${c.correctionReason}${c.applyToFuture ? ' [apply to future]' : ''}`,
      );
    console.log(
      `file now: ${d.file.exists ? 'exists' : 'absent'}${d.file.matchesAfter === null ? '' : d.file.matchesAfter ? ', unchanged since this write' : ', changed since this write'}`,
    );
    if (a.diff) console.log(`\n${colorDiff(a.diff)}`);
  });
}

async function guardianDiff(auditId: string, opts: Opts): Promise<void> {
  await withDatabase(opts, ({ db }, dir) => {
    const d = auditDiff(context(db, dir), auditId);
    if (opts.json) return printJson(d);
    process.stdout.write(d.diff ? colorDiff(d.diff) : `audit ${d.auditId}: no content was recorded for this write\n`);
  });
}

async function guardianHistory(opts: Opts): Promise<void> {
  await withDatabase(opts, async ({ db }, dir) => {
    const ctx = context(db, dir);
    recordExternalChanges(ctx);
    const page = fileHistory(ctx, { file: opts.file as string, limit: opts.limit as number, cursor: opts.cursor as string });
    if (opts.json) return printJson(page);
    const t = table(['audit', 'time', 'who', 'why', 'lines +/-/~', 'status']);
    for (const h of page.items) {
      const st = h.rolledBack ? `rolled back by ${h.rolledBack.by}` : h.status;
      t.push([
        h.auditId,
        time(h.createdAt),
        short(h.actor, 40),
        short(h.reason, 50),
        h.lineChanges ? `${h.lineChanges.added}/${h.lineChanges.removed}/${h.lineChanges.modified}` : '',
        st,
      ]);
    }
    console.log(page.items.length ? t.toString() : `no recorded versions of ${opts.file}`);
    if (page.nextCursor) console.log(`more: --cursor ${page.nextCursor}`);
  });
}

async function guardianExport(opts: Opts): Promise<void> {
  await withDatabase(opts, async ({ db }, dir) => {
    if (opts.output) refuseExisting([path.resolve(opts.output as string)], Boolean(opts.overwrite));
    const out = opts.output ? fs.createWriteStream(path.resolve(opts.output as string)) : process.stdout;
    const res = await exportAudits(
      context(db, dir),
      {
        format: opts.format as AuditExportFormat,
        includeContent: Boolean(opts.includeContent),
        includePii: Boolean(opts.includePii),
        sessionKey: opts.session as string,
        file: opts.file as string,
        status: opts.status as string,
        since: opts.since as string,
        until: opts.until as string,
      },
      out,
    );
    if (opts.output) {
      await new Promise<void>((resolve, reject) => (out as fs.WriteStream).end((e?: Error | null) => (e ? reject(e) : resolve())));
      process.stderr.write(`exported ${res.count} audit(s) as ${res.format} to ${opts.output}\n`);
    }
  });
}

async function guardianRollback(auditId: string | undefined, opts: Opts): Promise<void> {
  await withDatabase(opts, async ({ db }, dir) => {
    const ctx = context(db, dir, opts.by);
    if (!auditId && !opts.session) throw new AppError('Invalid', 'rollback: give an audit id or --session <key>');
    if (!opts.dryRun) await prepare(ctx);
    const common = { reason: opts.reason as string, by: opts.by as string, dryRun: Boolean(opts.dryRun), force: Boolean(opts.force) };
    if (opts.session) return rollbackWholeSession(ctx, opts, common);
    const r = await rollbackWrite(ctx, { auditId: auditId!, ...common });
    if (opts.json) return printJson(r);
    if (r.conflict) {
      console.log(r.conflict.message);
      process.exitCode = 1;
      return;
    }
    console.log(colorDiff(r.diff));
    const verb = r.dryRun ? 'would' : 'did';
    console.log(
      `${verb} ${r.deletesFile ? `delete ${r.targetFile}` : `restore ${r.targetFile}`} (${r.mode})${r.rollbackAuditId ? `; rollback audit ${r.rollbackAuditId}` : ''}${r.reappliesAuditId ? `; re-applies ${r.reappliesAuditId}` : ''}`,
    );
    if (r.dryRun && r.resultContent !== null && !opts.json) console.log(`\n--- resulting ${r.targetFile} ---\n${r.resultContent}`);
  });
}

async function rollbackWholeSession(
  ctx: ServiceContext,
  opts: Opts,
  common: { reason: string; by: string; dryRun: boolean; force: boolean },
): Promise<void> {
  const res = await rollbackSession(ctx, {
    sessionKey: opts.session as string,
    since: opts.since as string,
    until: opts.until as string,
    ...common,
  });
  if (opts.json) return printJson(res);
  for (const i of res.items)
    console.log(`${i.ok ? pc.green('ok  ') : pc.red('FAIL')} ${i.auditId} ${i.targetFile} ${i.ok ? i.result?.mode : i.error?.message}`);
  console.log(`${res.dryRun ? 'would roll back' : 'rolled back'} ${res.rolledBack}, failed ${res.failed}`);
  if (res.failed) process.exitCode = 1;
}

async function guardianRetry(auditId: string, opts: Opts): Promise<void> {
  await withDatabase(opts, async ({ db }, dir) => {
    const ctx = context(db, dir, opts.by);
    const content = opts.contentFile ? fs.readFileSync(path.resolve(opts.contentFile as string), 'utf8') : undefined;
    if (!opts.dryRun) await prepare(ctx);
    const r = await retryWrite(ctx, {
      auditId,
      fact: opts.fact as string,
      file: opts.file as string,
      content,
      reason: opts.reason as string,
      by: opts.by as string,
      dryRun: Boolean(opts.dryRun),
    });
    if (opts.json) return printJson(r);
    console.log(colorDiff(r.diff));
    console.log(
      r.dryRun ? `\n--- proposed ${r.targetFile} ---\n${r.proposedContent}` : `wrote ${r.targetFile}; retry audit ${r.retryAuditId}`,
    );
  });
}

async function guardianCorrect(auditId: string, opts: Opts): Promise<void> {
  await withDatabase(opts, ({ db }, dir) => {
    const c = correctWrite(context(db, dir, opts.by), {
      auditId,
      status: opts.status as 'written' | 'refused',
      reason: opts.reason as string,
      fact: opts.fact as string,
      file: opts.file as string,
      applyToFuture: Boolean(opts.applyToFuture),
      pattern: opts.pattern as string,
      by: opts.by as string,
    });
    if (opts.json) return printJson(c);
    console.log(
      `correction ${c.id} recorded for ${c.auditId}: ${c.originalStatus} → ${c.correctedStatus}${c.applyToFuture ? ' (applies to future samples)' : ''}`,
    );
  });
}

async function guardianCorrections(opts: Opts): Promise<void> {
  await withDatabase(opts, ({ db }, dir) => {
    const ctx = context(db, dir);
    const list = opts.future ? listFutureCorrections(ctx) : listCorrections(ctx);
    if (opts.json) return printJson(list);
    for (const c of list) console.log(JSON.stringify(c));
    if (!list.length) console.log('no corrections');
  });
}

async function guardianPruneSnapshots(opts: Opts): Promise<void> {
  await withDatabase(opts, ({ db }, dir) => {
    const r = pruneSnapshots(context(db, dir), { maxSnapshotsPerFile: opts.max as number, file: opts.file as string });
    if (opts.json) return printJson(r);
    for (const f of r.files) console.log(`${f.fileName}: ${f.before} snapshots, deleted ${f.deleted}, kept ${f.kept}`);
  });
}

async function guardianReconcile(opts: Opts): Promise<void> {
  await withDatabase(opts, async ({ db }, dir) => {
    const ctx = context(db, dir);
    const messages = await reconcilePending(ctx);
    const external = recordExternalChanges(ctx);
    if (opts.json) return printJson({ messages, external });
    for (const m of messages) console.log(m);
    for (const e of external) console.log(`external change recorded: ${e.fileName} (${e.kind}) audit ${e.auditId}`);
    if (!messages.length && !external.length) console.log('files and database agree');
  });
}
