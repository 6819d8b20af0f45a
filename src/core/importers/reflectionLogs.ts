// Rebuilds sessions, turns, context windows, memory_gate decisions and write_guardian audits from
// the Reflection plugin's logs, following the reconstruction rules of docs/formats.md.
import fs from 'node:fs';
import path from 'node:path';
import { AUDIT_STATUSES, GATE_DECISIONS } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { STATE_DIR, writeTx } from '../db/connection';
import { insertGuardianLogLineIfNew } from '../db/repositories/pluginLogs';
import { nowOf, type ServiceContext } from '../context';
import { loadState, saveState } from './cursors';
import { oneOf, optStr, time } from './fields';
import { hashOf } from './ids';
import { finishImport } from './finish';
import { serialized } from './serialize';
import type { ImportReport } from '../../shared/contract';
import { ReportBuilder } from './report';
import { importJsonLines } from './stream';
import { LogReplay, emptyLogState, type LogState } from './pluginLogReplay';
import { claimConsolidationWrites } from './pluginLogStore';
import { importManagedStore, joinManagedRenders } from './managedStore';

export interface ReflectionLogsInput {
  /** The plugin root (holding logs/), its logs folder, or one reflection-YYYY-MM-DD.log file. */
  source: string;
  /** The OpenClaw workspace whose .openclaw-reflection/write-guardian.log.jsonl holds the candidate facts. Defaults to ctx.workspaceDir. */
  workspace?: string;
  /** The audit log itself, when it is somewhere else. */
  guardianLog?: string;
  maxLineBytes?: number;
  /** Compare the memory files with what was last seen at the end (default true); live capture does that itself. */
  recordExternalChanges?: boolean;
}

const STATE_SCOPE = 'reflection-logs';

/**
 * reflection-*.log files in date order (the date is in the name, so name order is date order). Only
 * regular files: a FIFO or a folder named like a log is reported and skipped (stat never blocks).
 */
export function findReflectionLogs(source: string, onSkipped?: (file: string, what: string) => void): string[] {
  if (!fs.existsSync(source)) throw new AppError('NotFound', `${source} does not exist`);
  const top = fs.statSync(source);
  if (!top.isDirectory()) {
    if (!top.isFile()) throw new AppError('Invalid', `${source} is ${kindOf(top)}, not a log file`);
    return [path.resolve(source)];
  }
  const logsDir = fs.existsSync(path.join(source, 'logs')) ? path.join(source, 'logs') : source;
  const out: string[] = [];
  for (const name of fs
    .readdirSync(logsDir)
    .filter((f) => /^reflection-.*\.log$/.test(f))
    .sort()) {
    const file = path.resolve(logsDir, name);
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      continue; // removed while listing
    }
    if (st.isFile()) out.push(file);
    else onSkipped?.(file, kindOf(st));
  }
  return out;
}

function statOrNull(file: string): fs.Stats | null {
  try {
    return fs.statSync(file);
  } catch {
    return null;
  }
}

export function kindOf(st: fs.Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

const IDLE_SESSION_MS = 7 * 24 * 3600 * 1000;

/**
 * Months of logs name thousands of sessions; the carried state keeps only those active in the last
 * week of log time (the plugin itself recreates a buffer for a session that comes back).
 */
function pruneIdleSessions(state: LogState): LogState {
  let latest = 0;
  for (const s of Object.values(state.sessions)) latest = Math.max(latest, s.lastAt ?? 0);
  for (const [key, s] of Object.entries(state.sessions)) {
    if ((s.lastAt ?? 0) < latest - IDLE_SESSION_MS) delete state.sessions[key];
  }
  return state;
}

export function importReflectionLogs(ctx: ServiceContext, input: ReflectionLogsInput): Promise<ImportReport> {
  return serialized(ctx.db, 'reflection-logs', () => run(ctx, input));
}

/** The write_guardian audit log: one row per line, keyed by the line's own hash (a renamed copy adds nothing). */
async function importGuardianLog(
  ctx: ServiceContext,
  report: ReportBuilder,
  guardianLog: string,
  maxLineBytes: number | undefined,
  progress: { done: number; total: number; label: string },
): Promise<void> {
  const guardianStat = statOrNull(guardianLog);
  if (guardianStat && !guardianStat.isFile()) {
    report.note(`${path.basename(guardianLog)} is ${kindOf(guardianStat)}, not a log file: it was skipped.`);
  } else if (guardianStat) {
    await importJsonLines(
      ctx,
      report,
      {
        importer: 'guardian-log',
        file: path.resolve(guardianLog),
        maxLineBytes,
        handle: (v, line) => {
          const at = time(v, 'timestamp');
          const decision = oneOf(v, 'decision', GATE_DECISIONS);
          const status = oneOf(v, 'status', AUDIT_STATUSES);
          const targetFile = optStr(v, 'targetFile');
          const reason = optStr(v, 'reason');
          const fact = optStr(v, 'candidateFact');
          // From the line alone: the same audit log under another name adds nothing.
          const id = hashOf('guardian-log', line.text ?? '').slice(0, 32);
          const row = {
            id,
            at,
            decision,
            status,
            targetFile: targetFile ?? null,
            reason: reason ?? null,
            fact: fact ?? null,
            file: guardianLog,
            line: line.lineNumber,
          };
          report.inserted('guardian_log_lines', insertGuardianLogLineIfNew(ctx.db, row));
        },
      },
      { progress },
    );
  } else {
    report.note(`No write-guardian.log.jsonl at ${guardianLog}: the candidate facts of writes stay empty.`);
  }
}

async function run(ctx: ServiceContext, input: ReflectionLogsInput): Promise<ImportReport> {
  const report = new ReportBuilder('reflection-logs', input.source, nowOf(ctx));
  const files = findReflectionLogs(input.source, (file, what) =>
    report.note(`${path.basename(file)} is ${what}, not a log file: it was skipped.`),
  );
  const guardianLog = input.guardianLog ?? path.join(input.workspace ?? ctx.workspaceDir, STATE_DIR, 'write-guardian.log.jsonl');
  const state: LogState = { ...emptyLogState(), ...(loadState<LogState>(ctx.db, STATE_SCOPE) ?? {}) };
  // Read each log only as far as it reached before the audit log is read: while the plugin runs, an
  // outcome line appended later could otherwise be read before its audit line (live capture).
  const endOf = new Map(files.map((f) => [f, fs.statSync(f).size]));
  const total = files.reduce((n, f) => n + endOf.get(f)!, 0) + (statOrNull(guardianLog)?.size ?? 0);
  const progress = { done: 0, total, label: 'reading plugin logs' };
  if (!files.length) report.note(`No reflection-*.log files were found in ${input.source}.`);
  const debugJson = files[0] ? path.join(path.dirname(files[0]), 'debug.json') : undefined;
  if (debugJson && fs.existsSync(debugJson)) {
    report.note('debug.json was left as it is: it holds only the latest raw inbound payload, which the log lines already carry.');
  }

  // The audit log first: its lines (written 0-5 s before the MessageHandler line) must be in the
  // database before the write outcomes that join them are read.
  await importGuardianLog(ctx, report, guardianLog, input.maxLineBytes, progress);

  const replay = new LogReplay(ctx.db, report, state);
  for (const file of files) {
    if (ctx.signal?.aborted) break;
    const base = path.basename(file);
    await importJsonLines(
      ctx,
      report,
      {
        importer: 'reflection-logs',
        file,
        end: endOf.get(file),
        maxLineBytes: input.maxLineBytes,
        onCommit: () => saveState(ctx.db, STATE_SCOPE, pruneIdleSessions(state), nowOf(ctx)),
        handle: (v, line) => replay.handle(v, line, base),
      },
      { progress },
    );
  }

  // The memory-management plugin's fact store, when the workspace has one (live capture does this itself).
  if (input.recordExternalChanges !== false) {
    const managed = importManagedStore(ctx.db, input.workspace ?? ctx.workspaceDir, nowOf(ctx));
    if (managed.facts) report.count('managed_facts', managed.facts);
    if (managed.problem) report.note(managed.problem);
  }
  const result = finishImport(ctx, report, { recordExternalChanges: input.recordExternalChanges });
  // External changes are recorded at the end: those a consolidation run made are claimed now. Live
  // capture (recordExternalChanges: false) records them itself, then claims them and joins managed
  // renders in its own pass; done here too, the joins read every open plugin write on each pass: 155 ms
  // at 20,000 decisions, growing with the workspace, holding the write lock (bench 45-jobs).
  if (input.recordExternalChanges !== false)
    writeTx(ctx.db, () => {
      claimConsolidationWrites(ctx.db);
      joinManagedRenders(ctx.db);
    });
  return result;
}
