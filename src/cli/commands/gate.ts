import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import Table from 'cli-table3';
import pc from 'picocolors';
import { GATE_DECISIONS, type ConversationContextItem, type GateDecision } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { ServiceContext } from '../../core/context';
import { exportDecisions, gateStats, listDecisions, showDecision } from '../../core/gate';
import type { DecisionExportFormat, DecisionFilters, GateStatsGrouping } from '../../core/gate';
import { refuseExisting } from '../../core/lifecycle/outputFiles';
import { action, printJson, withDatabase, withWorkspace, type GlobalOptions } from '../context';

/** A subcommand's parsed options (commander gives them untyped). */
export type Opts = GlobalOptions & Record<string, unknown>;

// Conversation text is untrusted: escape sequences in it could rewrite the terminal, so they never reach it.
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-_]/g;
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Text safe to print: no escape sequences or control characters; newlines kept only when asked. */
export function clean(text: string | null | undefined, keepNewlines = false): string {
  const s = String(text ?? '')
    .replace(ESCAPES, '')
    .replace(CONTROLS, ' ');
  return keepNewlines ? s.replace(/\r\n?/g, '\n') : s.replace(/\s+/g, ' ').trim();
}

/** Terminal columns of one character: East Asian wide and fullwidth characters take two. */
function charWidth(cp: number): number {
  if (cp < 0x1100) return 1;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

export function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += charWidth(ch.codePointAt(0)!);
  return w;
}

/** Cuts text to at most `width` terminal columns, never splitting a wide character. */
export function clip(text: string | null | undefined, width: number): string {
  const s = clean(text);
  if (displayWidth(s) <= width) return s;
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = charWidth(ch.codePointAt(0)!);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/** A cli-table3 table; plain (no colour codes) when the output is not a terminal. */
export function table(options: Table.TableConstructorOptions = {}): Table.Table {
  const plain = !process.stdout.isTTY;
  return new Table({ ...options, ...(plain ? { style: { head: [], border: [] } } : {}) });
}

export const time = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

export const int = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new AppError('Invalid', `${name}: expected a whole number of at least 1, got ${v}`);
  return n;
};

const DECISION_COLORS: Record<GateDecision, (s: string) => string> = {
  NO_WRITE: pc.dim,
  UPDATE_MEMORY: pc.cyan,
  UPDATE_USER: pc.green,
  UPDATE_SOUL: pc.magenta,
  UPDATE_IDENTITY: pc.yellow,
  UPDATE_TOOLS: pc.blue,
};

function parseDecision(value: unknown): GateDecision | undefined {
  if (value === undefined) return undefined;
  const v = String(value).toUpperCase().replace(/-/g, '_');
  const d = (v.startsWith('UPDATE_') || v === 'NO_WRITE' ? v : `UPDATE_${v}`) as GateDecision;
  if (!GATE_DECISIONS.includes(d)) throw new AppError('Invalid', `--decision: "${value}" is not one of ${GATE_DECISIONS.join(', ')}`);
  return d;
}

function filtersFrom(opts: Opts, sessionArg?: string): DecisionFilters {
  if (sessionArg && opts.session && sessionArg !== opts.session) {
    throw new AppError('Invalid', `session given twice: ${sessionArg} and --session ${String(opts.session)}`);
  }
  return {
    sessionId: (sessionArg ?? opts.session) as string | undefined,
    decision: parseDecision(opts.decision),
    since: opts.since as string | undefined,
    until: opts.until as string | undefined,
    query: opts.query as string | undefined,
  };
}

const ctxOf = (db: ServiceContext['db'], dir: string): ServiceContext => ({ db, workspaceDir: dir });

function contextTable(items: ConversationContextItem[]): string {
  const t = table({ head: ['#', 'Time', 'Role', 'Message'], colWidths: [5, 21, 7, 84], wordWrap: true, wrapOnWordBoundary: false });
  for (const c of items) t.push([c.sequenceNumber, time(c.timestamp), c.role, clean(c.message)]);
  return t.toString();
}

function addFilterOptions(cmd: Command): Command {
  return cmd
    .option('-s, --since <time>', 'from this time (ISO 8601, ms, or 7d / 24h back from now)')
    .option('-u, --until <time>', 'up to this time (exclusive)')
    .option('-d, --decision <type>', `only this decision (${GATE_DECISIONS.join(', ')})`)
    .option('-S, --session <sessionKey>', 'only this session')
    .option('-q, --query <text>', 'only decisions whose reason, fact or conversation contains this text');
}

export function register(program: Command): void {
  const gate = program.command('gate').description('memory_gate observability: what the gate decided, and why');

  addFilterOptions(
    withWorkspace(gate.command('list [sessionKey]').description('list decisions, newest first, with their conversation text'))
      .option('-l, --limit <n>', 'how many decisions (default 10)', int('--limit'))
      .option('-c, --with-context', "include each turn's full context window")
      .option('--cursor <cursor>', 'continue after the last page (printed under the table)'),
  ).action(action(gateList));

  withWorkspace(
    gate
      .command('show <id>')
      .description('one decision with its turn, write outcomes and (with -c) full context; id may be a unique prefix'),
  )
    .option('-c, --with-context', "include the turn's full context window")
    .action(action(gateShow));

  addFilterOptions(
    withWorkspace(gate.command('stats').description('counts per decision type and average latency'))
      .option('--daily', 'per day')
      .option('--weekly', 'per week (weeks start on Monday)')
      .option('--by-session', 'per session, busiest first')
      .option('-l, --limit <n>', 'how many days, weeks or sessions (default 30)', int('--limit')),
  ).action(action(gateStatsCommand));

  addFilterOptions(
    withWorkspace(
      gate.command('export').description('export decisions with their conversation text (oldest first; opted-out sessions are left out)'),
    )
      .option('-f, --format <format>', 'json, csv or markdown', 'json')
      .option('-o, --output <file>', 'write to this file (default: standard output)')
      .option('--bom', 'CSV: start with a UTF-8 byte order mark (for Excel)')
      .option('--overwrite', 'replace an existing output file')
      .option('--include-pii', 'export personal data and secrets as recorded (by default they are replaced with placeholders)'),
  ).action(action(gateExport));
}

/** `gate list`: a page of decisions as a table, with their context windows when asked. */
async function gateList(sessionKey: string | undefined, opts: Opts): Promise<void> {
  await withDatabase(opts, ({ db }, dir) => {
    const page = listDecisions(ctxOf(db, dir), {
      ...filtersFrom(opts, sessionKey),
      limit: (opts.limit as number | undefined) ?? 10,
      cursor: opts.cursor as string | undefined,
      withContext: Boolean(opts.withContext),
    });
    if (opts.json) return printJson(page);
    if (!page.items.length)
      return void process.stdout.write(`No decisions match${page.scanned ? ` among the newest ${page.scanned}` : ''}.\n`);
    const t = table({ head: ['Decision id', 'Time (UTC)', 'Session', 'Decision', 'Write', 'Conversation', 'Candidate fact / reason'] });
    for (const d of page.items) {
      t.push([
        d.id,
        time(d.createdAt),
        clip(d.sessionId, 28),
        DECISION_COLORS[d.decision](d.decision),
        d.writeStatus ?? '',
        `User: ${clip(d.userMessage, 48)}\nAgent: ${clip(d.agentReply, 47)}`,
        `${clip(d.candidateFact ?? '—', 40)}\n${pc.dim(clip(d.reason, 40))}`,
      ]);
    }
    process.stdout.write(`${t.toString()}\n`);
    if (opts.withContext) {
      for (const d of page.items) {
        process.stdout.write(`\nContext of ${d.id} (${d.sessionId} turn ${d.turnNumber}):\n${contextTable(d.context ?? [])}\n`);
      }
    }
    const scannedNote = page.scanned ? ` (text under 3 characters: looked at the newest ${page.scanned} decisions)` : '';
    process.stdout.write(
      `${page.items.length} decision(s)${scannedNote}${page.nextCursor ? `; more with --cursor ${page.nextCursor}` : ''}\n`,
    );
  });
}

/** `gate show`: one decision with its turn, its write outcomes and their diffs. */
async function gateShow(id: string, opts: Opts): Promise<void> {
  await withDatabase(opts, ({ db }, dir) => {
    const detail = showDecision(ctxOf(db, dir), id, { withContext: Boolean(opts.withContext) });
    if (opts.json) return printJson(detail);
    const d = detail.decision;
    const t = table({ colWidths: [18, 100], wordWrap: true, wrapOnWordBoundary: false });
    t.push(
      ['Decision', `${DECISION_COLORS[d.decision](d.decision)}  ${d.id}`],
      ['Time (UTC)', time(d.createdAt)],
      ['Session / turn', `${clean(d.sessionId)}  turn ${d.turnNumber}  (${d.turnId})`],
      ['Reason', clean(d.reason)],
      ['Candidate fact', clean(d.candidateFact ?? '—')],
      ['Model', `${clean(d.model)}  ${d.latencyMs ?? '?'} ms  ${d.promptTokens ?? '?'} + ${d.completionTokens ?? '?'} tokens`],
      ['User', clean(detail.turn.userMessage)],
      ['Agent', clean(detail.turn.agentReply)],
    );
    for (const w of detail.writes) {
      t.push([
        `Write ${w.status}`,
        `${w.targetFile}  ${time(w.createdAt)}  ${clean(w.reason ?? '')}${w.lineChanges ? `  (+${w.lineChanges.added} -${w.lineChanges.removed} ~${w.lineChanges.modified})` : ''}`,
      ]);
    }
    process.stdout.write(`${t.toString()}\n`);
    for (const w of detail.writes) if (w.diff) process.stdout.write(`\n${clean(w.diff, true)}\n`);
    if (opts.withContext) process.stdout.write(`\nContext window (${detail.context.length} messages):\n${contextTable(detail.context)}\n`);
  });
}

/** `gate stats`: counts per decision, then per day, week or session when one is chosen. */
async function gateStatsCommand(opts: Opts): Promise<void> {
  await withDatabase(opts, ({ db }, dir) => {
    const chosen = (['daily', 'weekly', 'bySession'] as const).filter((k) => opts[k]);
    if (chosen.length > 1) throw new AppError('Invalid', 'choose one of --daily, --weekly, --by-session');
    const groupBy: GateStatsGrouping = opts.daily ? 'daily' : opts.weekly ? 'weekly' : opts.bySession ? 'session' : 'none';
    const stats = gateStats(ctxOf(db, dir), { ...filtersFrom(opts), groupBy, limit: (opts.limit as number | undefined) ?? 30 });
    if (opts.json) return printJson(stats);
    const t = table({ head: ['Decision', 'Count', 'Share', 'Avg latency (ms)'] });
    const { total, byDecision, avgLatencyByDecision, avgLatencyMs } = stats.totals;
    for (const d of GATE_DECISIONS) {
      t.push([
        DECISION_COLORS[d](d),
        byDecision[d],
        total ? `${((100 * byDecision[d]) / total).toFixed(1)}%` : '—',
        avgLatencyByDecision[d] ?? '—',
      ]);
    }
    t.push([pc.bold('Total'), total, '', avgLatencyMs ?? '—']);
    process.stdout.write(`${t.toString()}\n`);
    if (groupBy !== 'none') {
      const label = groupBy === 'daily' ? 'Day' : groupBy === 'weekly' ? 'Week of' : 'Session';
      const g = table({ head: [label, 'Total', ...GATE_DECISIONS.map((d) => d.replace('UPDATE_', '')), 'Avg ms', 'Sessions'] });
      for (const r of stats.buckets)
        g.push([clip(r.key, 36), r.total, ...GATE_DECISIONS.map((d) => r.byDecision[d]), r.avgLatencyMs ?? '—', r.sessionCount]);
      process.stdout.write(`\n${g.toString()}\n`);
    }
  });
}

/** `gate export`: streams decisions to a file or standard output. */
async function gateExport(opts: Opts): Promise<void> {
  await withDatabase(opts, async ({ db }, dir) => {
    const format = String(opts.format) as DecisionExportFormat;
    const file = opts.output as string | undefined;
    // A reader that stops early (`| head`) is not an error.
    process.stdout.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(0);
      throw e;
    });
    if (file && fs.existsSync(file) && fs.statSync(file).isDirectory()) throw new AppError('Invalid', `--output: ${file} is a folder`);
    if (file) refuseExisting([path.resolve(file)], Boolean(opts.overwrite));
    const result = await exportDecisions(ctxOf(db, dir), {
      ...filtersFrom(opts),
      format,
      bom: Boolean(opts.bom),
      includePii: Boolean(opts.includePii),
      file,
      output: file ? undefined : process.stdout,
    });
    if (file) process.stderr.write(`exported ${result.rows} decision(s) as ${format} to ${file}\n`);
  });
}
