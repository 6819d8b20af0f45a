// Memory health commands: blame, health (contradictions, duplicates, secrets), erase, verify.
import type { Command } from 'commander';
import Table from 'cli-table3';
import pc from 'picocolors';
import { AppError } from '../../shared/errors';
import type { ServiceContext } from '../../core/context';
import { reconcilePending, recordExternalChanges } from '../../core/guardian';
import {
  blameFile,
  eraseValue,
  removeSecretsOfWrite,
  resolveFinding,
  scanMemoryHealth,
  flagNewWrites,
  rescanAllWrites,
  secondOpinions,
  verifyChains,
  type Finding,
} from '../../core/health';
import { action, printJson, withDatabase, withWorkspace } from '../context';
import type { Opts } from './gate';

const time = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
const int = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new AppError('Invalid', `${v}: expected a whole number`);
  return n;
};
const table = (head: string[]) => new Table({ head, ...(process.stdout.isTTY ? {} : { style: { head: [], border: [] } }) });

function context(db: ServiceContext['db'], dir: string, by?: unknown): ServiceContext {
  return { db, workspaceDir: dir, actor: typeof by === 'string' && by ? by : process.env.USER || 'curator' };
}

async function prepare(ctx: ServiceContext): Promise<void> {
  for (const m of await reconcilePending(ctx)) process.stderr.write(`${m}\n`);
  recordExternalChanges(ctx);
}

function registerBlame(program: Command): void {
  withWorkspace(
    program.command('blame <file>').description('which recorded write last produced each line of a memory file (like git blame)'),
  )
    .option('-L, --line <n>', 'only this line', int)
    .option('--seq <n>', 'blame a past version of the file instead of the file now', int)
    .option('--no-record', 'do not record edits made outside the recorder first (their lines then show no write)')
    .action(action(blameCommand));
}

/** `health` itself takes --workspace and --json, so commander may hand them to it rather than to its subcommand. */
const withParent = (own: Opts, cmd: Command): Opts => ({
  ...cmd.optsWithGlobals(),
  ...Object.fromEntries(Object.entries(own).filter(([, v]) => v !== undefined)),
});

function printFindings(findings: Finding[]): void {
  if (!findings.length) return void console.log('no open findings: the memory files agree with themselves');
  for (const f of findings) {
    console.log(
      `${pc.bold(f.id)}  ${f.kind}${f.attribute ? ` (${f.attribute})` : ''}${f.detail.secondOpinion && 'verdict' in f.detail.secondOpinion ? `  second opinion: ${f.detail.secondOpinion.verdict}` : ''}`,
    );
    f.detail.lines.forEach((l, i) => console.log(`  [${i}] ${l.fileName}:${l.line}  ${l.text.trim()}`));
  }
}

function registerHealth(program: Command): void {
  const h = withWorkspace(
    program.command('health').description('contradictions, repeated facts and secrets in the current memory files (a findings queue)'),
  )
    .option('--second-opinion', 'also ask the OpenAI-compatible endpoint configured in memoryHealth.secondOpinion')
    .option('--rescan-writes', 'scan every recorded write for secrets and personal data again (after the detector improved)')
    .action(action(healthScan));

  withWorkspace(h.command('resolve <id>').description('resolve a finding: keep one line, merge them, remove a secret, or dismiss'))
    .option('--keep <n>', 'keep line n (as listed) and remove the others', int)
    .option('--merge <line>', 'replace the lines with this one')
    .option('--remove', 'secrets: remove the value from the file')
    .option('--dismiss', 'leave the files as they are')
    .option('--reason <text>', 'why')
    .option('--by <name>', 'who resolves it')
    .action(action(healthResolve));

  withWorkspace(
    h
      .command('remove-secrets <auditId>')
      .description('remove the secrets and personal data a write stored from its memory file, and correct the write'),
  )
    .option('--by <name>', 'who removes them')
    .action(action(healthRemoveSecrets));
}

function registerErase(program: Command): void {
  withWorkspace(
    program
      .command('erase <value>')
      .description('erase a value (an email, a key) everywhere it was ever stored: files, history, indexes, archives, exports'),
  )
    .option('--dry-run', 'list every place first; change nothing')
    .option('--yes', 'erase (irreversible)')
    .option('--delete-exports', 'also delete past exports and backups that hold the value (otherwise listed only)')
    .option('--by <name>', 'who erases it (kept in the erasure stub)')
    .action(action(eraseCommand));
}

function registerVerify(program: Command): void {
  withWorkspace(program.command('verify').description('check the hash chain of every memory file version, and the files on disk'))
    .option('--no-disk', 'do not compare the files on disk')
    .action(action(verifyCommand));
}

export function register(program: Command): void {
  registerBlame(program);
  registerHealth(program);
  registerErase(program);
  registerVerify(program);
}

async function blameCommand(file: string, opts: Opts): Promise<void> {
  await withDatabase(opts, ({ db }, dir) => {
    const ctx = context(db, dir);
    // Like `guardian history`: an edit made outside the recorder becomes an external write first, so it has a line owner.
    if (opts.record !== false) recordExternalChanges(ctx);
    const r = blameFile(ctx, { file, line: opts.line as number | undefined, seq: opts.seq as number | undefined });
    if (opts.json) return printJson(r);
    for (const l of r.lines) {
      const w = l.write;
      const who = w
        ? `${w.auditId.slice(-8)} ${time(w.createdAt)} ${(w.source ?? '?').padEnd(8)}`
        : pc.yellow('(not recorded yet)'.padEnd(34));
      console.log(`${pc.dim(who)} ${String(l.line).padStart(4)} ${l.text}`);
      if (opts.line !== undefined && w) {
        console.log(
          `  write ${w.auditId}${w.decision ? `, decision ${w.decisionId} (${w.decision})` : ''}${w.turnId ? `, turn ${w.turnId}` : ''}${w.sessionId ? `, session ${w.sessionId}` : ''}`,
        );
        if (w.candidateFact || w.reason) console.log(`  why: ${w.candidateFact ?? w.reason}`);
        for (const h of l.history) console.log(`  earlier: ${h.write.auditId} ${time(h.write.createdAt)} (${h.write.source}) "${h.text}"`);
      }
    }
    if (r.diskDiffers) process.stderr.write(`${r.fileName} has edits not recorded yet: run \`reflection guardian reconcile\`\n`);
  });
}

async function healthScan(opts: Opts): Promise<void> {
  await withDatabase(opts, async ({ db }, dir) => {
    const ctx = context(db, dir);
    recordExternalChanges(ctx);
    if (opts.rescanWrites) rescanAllWrites(db);
    else flagNewWrites(db);
    const scan = scanMemoryHealth(ctx);
    const open = opts.secondOpinion ? (await secondOpinions(ctx), scanMemoryHealth(ctx).open) : scan.open;
    if (opts.json) return printJson({ ...scan, open });
    printFindings(open);
    console.log(
      `\n${open.length} open (${scan.added} new, ${scan.closed} closed since the last scan). Resolve: reflection health resolve <id> --keep <n> | --merge "<line>" | --remove | --dismiss`,
    );
  });
}

async function healthResolve(id: string, own: Opts, cmd: Command): Promise<void> {
  await withDatabase(withParent(own, cmd), async ({ db }, dir) => {
    const opts = withParent(own, cmd);
    const chosen = ['keep', 'merge', 'remove', 'dismiss'].filter((k) => opts[k] !== undefined && opts[k] !== false);
    if (chosen.length !== 1) throw new AppError('Invalid', 'choose exactly one of --keep <n>, --merge "<line>", --remove, --dismiss');
    const ctx = context(db, dir, opts.by);
    await prepare(ctx);
    const r = await resolveFinding(ctx, {
      id,
      action: chosen[0] as 'keep',
      keep: opts.keep as number,
      text: opts.merge as string,
      reason: opts.reason as string,
      by: opts.by as string,
    });
    if (opts.json) return printJson(r);
    console.log(`finding ${id}: ${r.finding.status}`);
    for (const c of r.changes) console.log(`  ${c.fileName}: curator write ${c.retryAuditId}, ${c.correctionIds.length} correction(s)`);
  });
}

async function healthRemoveSecrets(auditId: string, own: Opts, cmd: Command): Promise<void> {
  await withDatabase(withParent(own, cmd), async ({ db }, dir) => {
    const opts = withParent(own, cmd);
    const ctx = context(db, dir, opts.by);
    await prepare(ctx);
    const c = await removeSecretsOfWrite(ctx, { auditId, by: opts.by as string });
    if (opts.json) return printJson(c);
    console.log(`${c.fileName}: values removed by curator write ${c.retryAuditId}; correction ${c.correctionIds.join(', ')}`);
  });
}

async function eraseCommand(value: string, opts: Opts): Promise<void> {
  await withDatabase(opts, async ({ db }, dir) => {
    const ctx = context(db, dir, opts.by);
    if (!opts.dryRun) await prepare(ctx);
    const r = await eraseValue(ctx, {
      value,
      dryRun: Boolean(opts.dryRun),
      confirm: Boolean(opts.yes),
      deleteExports: Boolean(opts.deleteExports),
      by: opts.by as string,
    });
    if (opts.json) return printJson(r);
    const t = table(['place', 'kind', 'count', 'action']);
    for (const p of r.places) t.push([p.place, p.kind, p.count, p.action]);
    console.log(r.places.length ? t.toString() : 'the value is stored nowhere');
    for (const b of r.blocked) console.log(pc.yellow(`identifier column, not rewritten: ${b}`));
    for (const w of r.warnings) console.log(pc.yellow(`warning: ${w}`));
    console.log(
      r.dryRun
        ? 'dry run: nothing changed. Erase with --yes (and --delete-exports to delete the listed exports).'
        : `erased (stub ${r.erasureId}); re-chained: ${r.rechained.join(', ') || 'none'}`,
    );
  });
}

async function verifyCommand(opts: Opts): Promise<void> {
  await withDatabase(opts, ({ db }, dir) => {
    const r = verifyChains(context(db, dir), { disk: opts.disk !== false });
    if (opts.json) return printJson(r);
    for (const f of r.files)
      console.log(
        `${f.fileName.padEnd(12)} ${String(f.versions).padStart(6)} versions  ${f.breaks ? pc.red(`${f.breaks} break(s)`) : pc.green('ok')}`,
      );
    for (const b of r.breaks) console.log(pc.red(`${b.kind}: ${b.message}`));
    for (const e of r.events)
      console.log(
        pc.dim(
          `re-chained ${e.fileName} from version ${e.fromSeq} on ${time(e.createdAt)}: ${e.reason}${e.erasureId ? ` (erasure ${e.erasureId})` : ''}`,
        ),
      );
    if (r.chained) console.log(`chained ${r.chained} write(s) recorded before the chain existed`);
    console.log(r.ok ? pc.green('verify: ok') : pc.red(`verify: ${r.breaks.length} break(s)`));
    if (!r.ok) process.exitCode = 1;
  });
}
